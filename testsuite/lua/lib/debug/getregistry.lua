-- debug.getregistry returns the registry table, which holds the loaded-modules table
-- (_LOADED, the same as package.loaded) and the file handle metatable (FILE*).
local r = debug.getregistry()
print(type(r), r == debug.getregistry())
print(type(r._LOADED), r._LOADED == package.loaded)
print(type(r["FILE*"]), r["FILE*"] == getmetatable(io.stdout))
r.my_key = "stored"
print(debug.getregistry().my_key)
r.my_key = nil
