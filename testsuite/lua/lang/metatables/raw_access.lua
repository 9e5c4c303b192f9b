-- rawget, rawset and rawequal ignore metamethods; rawset returns its table; wrong
-- argument types are errors.
local mt = {
  __index = function() return "meta" end,
  __newindex = function() error("no writes") end,
  __eq = function() return true end,
}
local t = setmetatable({}, mt)
print(t.x, rawget(t, "x"))
print(rawset(t, "x", 1) == t, t.x, rawget(t, "x"))
rawset(t, 1, "one")
print(t[1], rawget(t, 1), #t)
local u = setmetatable({}, mt)
print(t == u, rawequal(t, u), rawequal(t, t))
print(rawequal(1, 1), rawequal(1, 1.0), rawequal("a", "a"), rawequal(1, "1"))
print(rawequal(nil, nil), rawequal(nil, false), rawequal({}, {}))
print(pcall(rawget, "str", 1))
print(pcall(rawset, 5, 1, 2))
print(pcall(rawget, nil, 1))
-- rawget with nil key returns nil.
print(rawget(t, nil))
-- rawset with nil value deletes.
rawset(t, "x", nil)
print(rawget(t, "x"), t.x)
