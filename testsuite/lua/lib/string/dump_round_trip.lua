-- string.dump round trips: upvalues come back fresh (nil), debug info and errors are kept,
-- nested functions inside the dumped one work, and damaged dumps are refused with an error.
local up = 10
local function withup(x) return up, x end
local f = loadstring(string.dump(withup))
print(f(1))
local function nested(n)
  local function inner(k) return k * n end
  return inner(3), inner(4)
end
print(loadstring(string.dump(nested))(5))
local function failing() local t = nil; return t.x end
local g = loadstring(string.dump(failing))
print(pcall(g))
print(debug.getinfo(g, "S").source == debug.getinfo(failing, "S").source, debug.getinfo(g, "S").linedefined)
-- a dump of a dump
print(loadstring(string.dump(loadstring(string.dump(nested))))(2))
-- a whole chunk
local chunk = loadstring("local a, b = ... return a + b, select('#', ...)", "=sum")
local c2 = loadstring(string.dump(chunk))
print(c2(1, 2, 3))
print(debug.getinfo(c2, "S").source, debug.getinfo(c2, "S").what)
-- the environment is the loader's globals
local h = function() return type(print) end
setfenv(h, {})
print(loadstring(string.dump(h))())
-- natives cannot be dumped
print(pcall(string.dump, print))
print(pcall(string.dump, 1))
print(pcall(string.dump))
-- damaged dumps
local d = string.dump(nested)
for _, bad in ipairs({d:sub(1, 3), d:sub(1, 8), d:sub(1, #d - 1), d .. "x", "\27Lua", "\27", "\27Lux"}) do
  local fn, msg = loadstring(bad)
  print(type(fn), msg and (msg:gsub("^.-: ", "")))
end
local fn, msg = loadstring(d:sub(1, 20), "=name")
print(fn, msg ~= nil)
-- load with a reader, and the byte at the start
print(string.byte(d, 1) == 27, d:sub(2, 4))
local pos = 0
local viaload = load(function() pos = pos + 1 if pos == 1 then return d:sub(1, 10) elseif pos == 2 then return d:sub(11) end end)
print(viaload(7))
-- files holding dumps, behind a "#!" line too
local name = os.tmpname()
local fh = io.open(name, "wb")
fh:write(string.dump(function(...) return "from file", ... end))
fh:close()
print(dofile(name))
print(loadfile(name)("x"))
fh = io.open(name, "wb")
fh:write("#!/usr/bin/lua\n", string.dump(function() return "after shebang" end))
fh:close()
print(dofile(name))
os.remove(name)
