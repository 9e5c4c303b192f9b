-- The package library as 5.1's loadlib.c defines it: package.config, path, cpath, loaders
-- (a custom searcher added by the program is used), preload, loaded, loadlib without dynamic
-- libraries, and require's errors (not found, loops, errors in the module or its loading).
-- The modules are written to temporary files; their names are masked in the output.
local prefix = os.tmpname()
local files = {
  m1 = "return {name = ..., x = 1}",
  bad = "error('boom in module')",
  selfloop = "return require('selfloop')",
  syn = "syntax error here",
  nilret = "X_LOADED = (X_LOADED or 0) + 1",
}
for name, text in pairs(files) do
  local f = assert(io.open(prefix .. "_" .. name .. ".lua", "w"))
  f:write(text)
  f:close()
end
local function masked(s) return (tostring(s):gsub(prefix:gsub("%p", "%%%0"), "TMP"):gsub(":%d+:", ":N:")) end

print(package.config:gsub("\n", "|"))
print(type(package.path), type(package.cpath), #package.loaders, type(package.preload))
print(package.loaded._G == _G, package.loaded.string == string, package.loaded.package == package)
package.path = prefix .. "_?.lua"
package.cpath = prefix .. "_?.so"
local m1 = require "m1"
print(m1.name, m1.x, require("m1") == m1, package.loaded.m1 == m1)
print(require "nilret", require "nilret", X_LOADED)
package.preload.pre = function(name) return "preloaded " .. name end
print(require "pre")
table.insert(package.loaders, 2, function(name)
  if name:match("^virtual%.") then return function(n) return {virtual = n} end end
  return "\n\tno virtual module '" .. name .. "'"
end)
print(require("virtual.one").virtual)
print(masked(select(2, pcall(require, "nowhere"))))
print(masked(select(2, pcall(require, "bad"))))
print(masked(select(2, pcall(require, "bad"))))
print(masked(select(2, pcall(require, "selfloop"))))
print(masked(select(2, pcall(require, "syn"))))
local f, err, when = package.loadlib(prefix .. "_none.so", "luaopen_none")
print(f, type(err), when == "absent" or when == "open")
print(pcall(package.loadlib))
package.loaders = nil
print(pcall(require, "m3"))
package.loaders = {}
print(pcall(require, "m3"))
for name in pairs(files) do os.remove(prefix .. "_" .. name .. ".lua") end
os.remove(prefix)
