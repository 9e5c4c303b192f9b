-- debug.getinfo with levels and with functions: the "S" fields (source, short_src, what,
-- linedefined, lastlinedefined), "l" (currentline), "n" (name, namewhat for locals, globals,
-- methods and fields), "u" (nups), "f" (func identity), the default of all fields, levels
-- beyond the stack (nil) and C functions.
local function keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return table.concat(ks, ",")
end
local function here() return debug.getinfo(1, "l").currentline end
print("currentline", here(), debug.getinfo(1, "l").currentline)
local function lf()
  local i = debug.getinfo(1, "S")
  return i.source, i.short_src, i.what, i.linedefined, i.lastlinedefined
end
print(lf())
local main = debug.getinfo(1, "S")
print(main.source, main.short_src, main.what, main.linedefined)
local c = debug.getinfo(print, "S")
print(c.source, c.short_src, c.what, c.linedefined, c.lastlinedefined)
print(keys(debug.getinfo(1, "S")))
print(keys(debug.getinfo(1, "l")))
print(keys(debug.getinfo(1, "n")))
print(keys(debug.getinfo(1, "u")))
print(keys(debug.getinfo(1, "f")))
local a, b = 1, 2
local function ups() return a + b end
print("nups", debug.getinfo(ups, "u").nups, debug.getinfo(print, "u").nups, debug.getinfo(lf, "u").nups)
print("func", debug.getinfo(ups, "f").func == ups, debug.getinfo(1, "f").func ~= nil)
local function myname() local i = debug.getinfo(1, "n") return i.name, i.namewhat end
print(myname())
function global_named() local i = debug.getinfo(1, "n") return i.name, i.namewhat end
print(global_named())
local obj = {}
function obj:method() local i = debug.getinfo(1, "n") return i.name, i.namewhat end
function obj.field() local i = debug.getinfo(1, "n") return i.name, i.namewhat end
print(obj:method())
print(obj.field())
local function caller_line() return debug.getinfo(2, "l").currentline end
print("caller line", caller_line())
local function callerf() return debug.getinfo(2, "f").func end
local function outer() return callerf() == outer end
print("caller func", (outer()))
print(debug.getinfo(100))
print(debug.getinfo(1, "") ~= nil, keys(debug.getinfo(1, "")))
local fi = debug.getinfo(lf)
print(fi.what, fi.currentline, fi.linedefined, fi.lastlinedefined, fi.nups, fi.source, fi.func == lf)
