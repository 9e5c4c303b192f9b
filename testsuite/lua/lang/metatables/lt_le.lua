-- __lt and __le: used for two tables (or two values of the same non-number,
-- non-string type) with the same handler; a > b is b < a, a >= b is b <= a; __le
-- falls back to `not (b < a)` when there is no __le; results become booleans.
local log = {}
local mt = {}
mt.__lt = function(a, b) log[#log + 1] = "lt(" .. a.n .. "," .. b.n .. ")" return a.n < b.n end
mt.__le = function(a, b) log[#log + 1] = "le(" .. a.n .. "," .. b.n .. ")" return a.n <= b.n end
local function N(n) return setmetatable({n = n}, mt) end
local one, two = N(1), N(2)
print(one < two, one > two, one <= two, one >= two, two <= two)
print(table.concat(log, " "))
-- Without __le, a <= b uses not (b < a).
log = {}
local only_lt = {__lt = mt.__lt}
local function L(n) return setmetatable({n = n}, only_lt) end
local a, b = L(1), L(2)
print(a <= b, b <= a, a <= a, a >= b)
print(table.concat(log, " "))
-- Without __lt, < is an error even if __le exists.
local only_le = {__le = function() return true end}
local x, y = setmetatable({}, only_le), setmetatable({}, only_le)
print(x <= y, x >= y)
print(pcall(function() return x < y end))
-- Results are converted to booleans.
local weird = {__lt = function() return "yes" end, __le = function() return nil end}
local w1, w2 = setmetatable({}, weird), setmetatable({}, weird)
print(w1 < w2, w1 <= w2, w1 > w2, w1 >= w2)
-- Mixed types never use metamethods: table vs number is an error.
print(pcall(function() return one < 1 end))
print(pcall(function() return 1 <= one end))
print(pcall(function() return one < "a" end))
-- Different handlers: error.
local other = setmetatable({n = 1}, {__lt = function() return true end})
print(pcall(function() return one < other end))
-- Same function in different metatables: allowed.
local same = setmetatable({n = 5}, {__lt = mt.__lt})
log = {}
print(one < same, table.concat(log, " "))
-- Tables without metamethods.
print(pcall(function() return {} < {} end))
print(pcall(function() return {} <= {} end))
-- Sorting with __lt.
local list = {N(5), N(3), N(9), N(1), N(7)}
table.sort(list)
local out = {}
for i, v in ipairs(list) do out[i] = v.n end
print(table.concat(out, " "))
-- Functions with the same metatable cannot get one (only tables/userdata here), so
-- comparing two functions fails.
print(pcall(function() return print < print end))
print(pcall(function() return true < false end))
