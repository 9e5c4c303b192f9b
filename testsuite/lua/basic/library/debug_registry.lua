-- debug.getregistry: a table whose _LOADED is package.loaded, as in 5.1.
local r = debug.getregistry() print(type(r), type(r._LOADED), r._LOADED == package.loaded)
