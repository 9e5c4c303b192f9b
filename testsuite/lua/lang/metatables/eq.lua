-- __eq: only called when both operands are tables (or both userdata), not raw-equal,
-- and both have the same __eq function; the result is converted to a boolean; ~= is
-- the negation.
local calls = 0
local function eqf(a, b) calls = calls + 1 return a.v == b.v end
local mt = {__eq = eqf}
local a = setmetatable({v = 1}, mt)
local b = setmetatable({v = 1}, mt)
local c = setmetatable({v = 2}, mt)
print(a == b, a ~= b, a == c, a ~= c, calls)
-- Raw-equal operands do not call __eq.
calls = 0
print(a == a, calls)
-- Different metatables sharing the same function still compare.
local other = setmetatable({v = 1}, {__eq = eqf})
print(a == other, calls)
-- Different functions: no call, false.
local diff = setmetatable({v = 1}, {__eq = function() return true end})
print(a == diff, diff == a)
-- Only one side has __eq: false.
local plain = {v = 1}
print(a == plain, plain == a)
-- Comparing with non-tables never calls __eq.
calls = 0
print(a == 1, a == "x", a == nil, 1 == a, calls)
-- The result is converted to a boolean.
local truthy = {__eq = function() return "yes" end}
local x, y = setmetatable({}, truthy), setmetatable({}, truthy)
print(x == y, x ~= y)
local falsy = {__eq = function() return nil end}
local p, q = setmetatable({}, falsy), setmetatable({}, falsy)
print(p == q, p ~= q)
-- __eq is not used by rawequal, table keys or table.
local k1, k2 = setmetatable({}, truthy), setmetatable({}, truthy)
local set = {[k1] = "k1"}
print(set[k2], rawequal(k1, k2))
-- Argument order.
local order
local om = {__eq = function(l, r) order = l.n .. r.n return true end}
local o1, o2 = setmetatable({n = "1"}, om), setmetatable({n = "2"}, om)
local _ = o1 == o2
print(order)
_ = o2 == o1
print(order)
_ = o1 ~= o2
print(order)
