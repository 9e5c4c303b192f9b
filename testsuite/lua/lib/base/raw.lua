-- rawequal, rawget and rawset: bypassing __eq, __index and __newindex, rawset's return
-- value, invalid keys (nil and NaN), and the argument errors.
local mt = {
  __eq = function() return true end,
  __index = function(_, k) return "meta " .. tostring(k) end,
  __newindex = function(t, k, v) rawset(t, k, "via meta " .. tostring(v)) end,
}
local a = setmetatable({}, mt)
local b = setmetatable({}, mt)
print(a == b, rawequal(a, b), rawequal(a, a))
print(rawequal(1, 1), rawequal(1, "1"), rawequal("x", "x"), rawequal(nil, nil), rawequal(0, -0))
print(a.missing, rawget(a, "missing"))
a.k = 1
print(rawget(a, "k"))
print(rawset(a, "r", 2) == a, rawget(a, "r"), a.r)
rawset(a, 1, "one")
print(a[1], #a)
rawset(a, "r", nil)
print(rawget(a, "r"), a.r)
print(pcall(rawset, {}, nil, 1))
print(pcall(rawset, {}, 0/0, 1))
print(rawget({}, nil))
print(pcall(rawget, "str", 1))
print(pcall(rawset, "str", 1, 1))
print(pcall(rawset, {}, 1))
print(pcall(rawequal, 1))
print(pcall(rawequal))
print(pcall(function() rawget(nil, 1) end))
-- Float keys that are integers are the same as the integer keys.
local t = {}
rawset(t, 2.0, "two")
print(rawget(t, 2), t[2])
