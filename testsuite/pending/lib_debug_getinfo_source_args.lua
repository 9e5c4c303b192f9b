-- PENDING: ljr differs from lua5.1.
-- getinfo of loadstring chunks reports source '@chunkname' / '@[string "..."]' (5.1: the name or source text unchanged); bad arguments give 'number expected' instead of 'function or level expected', and option '!' is accepted.
-- Expected (lua5.1):
--   =chunkname	chunkname	main
--   
--   
--   return debug.getinfo(1, 'Sl')	[string "..."]	3
--   false	bad argument #1 to '?' (function or level expected)
--   false	bad argument #1 to '?' (function or level expected)
--   false	bad argument #2 to '?' (invalid option)
--   false	bad argument #1 to '?' (function or level expected)
-- Actual (ljr):
--   @chunkname	chunkname	main
--   @[string "..."]	[string "..."]	3
--   false	bad argument #1 to '?' (number expected, got no value)
--   false	bad argument #1 to '?' (number expected, got string)
--   true	table: 0x7fd89001ca50
--   false	bad argument #1 to '?' (number expected, got table)
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
