-- `t[1]`, `t[2] = v`: constant integer indices (1..65535) are literals of their own bytecodes.
-- Every case a constant index meets: the array part, the hash part, holes, appends, __index
-- and __newindex (functions and tables), nil values under a metatable, non-tables, and
-- indices just outside the literal range, which take the general path.
local t = {10, 20, 30}
print(t[1], t[2], t[3], t[4], t[0], t[-1], t[1.5], t[65535], t[65536])
t[4] = 40 t[6] = 60 t[5] = 50
print(#t, t[4], t[5], t[6])
t[2] = nil
print(t[1], t[2], t[3])
local h = {} h[100] = "far" h[65535] = "edge" h[65536] = "beyond"
print(h[100], h[65535], h[65536], h[1])

local log = {}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k return k * 2 end,
  __newindex = function(tt, k, v) log[#log + 1] = "set " .. k rawset(tt, k, v) end,
})
print(proxy[1], proxy[7])
proxy[1] = "one" proxy[1] = "uno"
print(proxy[1], table.concat(log, ","))
local base = {"b1", "b2"}
local derived = setmetatable({"d1"}, {__index = base})
print(derived[1], derived[2], derived[3])
local sink = {}
local redirect = setmetatable({}, {__newindex = sink})
redirect[1] = "x"
print(rawget(redirect, 1), sink[1])
local withmt = setmetatable({1, nil, 3}, {__index = function() return "mt" end})
print(withmt[1], withmt[2], withmt[3], withmt[4])

print(pcall(function() local n = nil return n[1] end))
print(pcall(function() local s = "str" return s[1] end))
print(pcall(function() local b = true b[1] = 1 end))
print(("abc")[1])

-- the loop variable of an array build, read back by constant index
local grid = {}
for i = 1, 3 do grid[i] = {i, i * 10} end
print(grid[1][1], grid[2][2], grid[3][1], grid[3][2])
local pair = {1, 2}
pair[1], pair[2] = pair[2], pair[1]
print(pair[1], pair[2])
