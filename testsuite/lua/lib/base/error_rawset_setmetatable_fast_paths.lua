-- error, rawset and setmetatable run in generated code for their common cases and hand the
-- rest (positions, argument errors, protected metatables, new keys) to their native twins.
print(pcall(error))
print(pcall(error, nil))
print(select("#", pcall(error, {}, 0)), type(select(2, pcall(error, {}, 0))))
print(pcall(error, "msg"))
print(pcall(error, "msg", 0))
print(pcall(error, "msg", 2))
print(pcall(error, 42))
print(pcall(error, 42, 0.5))
print(pcall(error, "m", -1))
print(pcall(error, "m", "2"))
print(pcall(error, "m", "x"))
print(pcall(error, {}, {}))
print(pcall(error, true, 1))
local function lvl() error("deep", 2) end
print(pcall(function() lvl() end))
local t = setmetatable({}, { __newindex = function() error("no") end })
print(rawset(t, "a", 1) == t, t.a)
print(rawset(t, 1, "x") == t, t[1])
rawset(t, "a", nil); print(t.a)
print(pcall(rawset, t, nil, 1))
print(pcall(rawset, t, 0/0, 1))
print(pcall(rawset, 1, 1, 1))
print(pcall(rawset, t, 1))
local arr = {1, 2, 3}
rawset(arr, 2, "two"); rawset(arr, 4, "four"); rawset(arr, 3, nil)
print(arr[1], arr[2], arr[3], arr[4], #arr >= 2)
local obj = { x = 1 }
rawset(obj, "x", 2); rawset(obj, "y", 3); print(obj.x, obj.y)
local mt = { __index = function(_, k) return k .. "!" end }
local o = setmetatable({}, mt)
print(o.foo, getmetatable(o) == mt)
print(setmetatable(o, nil) == o, o.foo, getmetatable(o))
print(pcall(setmetatable, o))
print(pcall(setmetatable, o, 1))
print(pcall(setmetatable, 1, {}))
local prot = setmetatable({}, { __metatable = "locked" })
print(pcall(setmetatable, prot, {}))
print(getmetatable(prot))
local cls = {}; cls.__index = cls
function cls.get(s) return s.v end
local inst = setmetatable({ v = 7 }, cls)
print(inst:get())
for i = 1, 3 do local p = setmetatable({ v = i }, cls); print(p:get(), p.v) end
local weak = setmetatable({}, { __mode = "k" })
weak[{}] = 1; collectgarbage(); print(next(weak))
