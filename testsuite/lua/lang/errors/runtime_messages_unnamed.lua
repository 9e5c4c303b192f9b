-- Messages for values that have no simple name: results of calls, non-constant or
-- numeric keys, constants, and parenthesised expressions.
local function try(f) local ok, e = pcall(f) print(e) end
local function ret_nil() return nil end
local t = {}
local k = "dyn"
try(function() return ret_nil().x end)
try(function() ret_nil()() end)
try(function() return t[1].x end)
try(function() return t[k].x end)
try(function() t[1]() end)
try(function() t[k]() end)
try(function() return (ret_nil()) + 1 end)
try(function() return {} + 1 end)
try(function() return ("a" .. "b") + 1 end)
try(function() return #5 end)
try(function() local a = {} return a[1][2][3] end)
try(function() return t.a.b.c end)
try(function() return (t).x.y end)
try(function() return -{} end)
try(function() return nil .. "x" end)
-- Upvalue tables indexed with constant keys.
try(function() return t.field.sub end)
-- Global function call results.
try(function() return tostring(nil).x end)
try(function() return type(1)() end)
-- Calling through a table with a number key.
local list = {function() return "ok" end}
print(list[1]())
try(function() list[2]() end)
-- Method call on a nil field.
try(function() t.obj:method() end)
