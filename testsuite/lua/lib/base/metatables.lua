-- getmetatable/setmetatable: setting, replacing and removing metatables, the __metatable
-- protection field, metatables of strings and other types, and the argument errors.
local t = {}
local mt = {}
print(setmetatable(t, mt) == t)
print(getmetatable(t) == mt)
print(setmetatable(t, nil) == t, getmetatable(t))
print(getmetatable({}), getmetatable(1), getmetatable(nil), getmetatable(print), getmetatable(true))
print(getmetatable("abc").__index == string)
mt.__metatable = "locked"
setmetatable(t, mt)
print(getmetatable(t))
print(pcall(setmetatable, t, {}))
print(pcall(setmetatable, t, nil))
mt.__metatable = false
print(getmetatable(t))
print(pcall(setmetatable, t, {}))
print(pcall(setmetatable, 1, {}))
print(pcall(setmetatable))
print(pcall(getmetatable))
print(pcall(function() setmetatable("x", {}) end))
-- The metatable takes effect immediately and can be swapped.
local obj = setmetatable({}, {__index = function(_, k) return "first " .. k end})
print(obj.a)
setmetatable(obj, {__index = function(_, k) return "second " .. k end})
print(obj.b)
-- __metatable can be any value, including a table.
local shield = {}
local p = setmetatable({}, {__metatable = shield})
print(getmetatable(p) == shield)
