-- debug.getinfo on chunks from loadstring: source is the chunk name as given ("=name") or
-- the source text itself (no "@" added), short_src is derived from it; and the argument
-- errors: "function or level expected", "invalid option" for unknown what-letters.
local loaded = loadstring("return debug.getinfo(1, 'S')", "=chunkname")()
print(loaded.source, loaded.short_src, loaded.what)
local loaded2 = loadstring("\n\nreturn debug.getinfo(1, 'Sl')")()
print(loaded2.source, loaded2.short_src, loaded2.currentline)
print(pcall(debug.getinfo))
print(pcall(debug.getinfo, "x"))
print(pcall(debug.getinfo, 1, "!"))
print(pcall(debug.getinfo, {}))
