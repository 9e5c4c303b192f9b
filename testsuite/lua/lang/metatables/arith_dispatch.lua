-- Which metamethod runs for a binary operator: the first operand's if it has one,
-- otherwise the second operand's; an operand without the metamethod (including a
-- number or a string that does not convert) makes the other one's handler run;
-- without any handler it is an error.
local L = setmetatable({}, {__add = function() return "left" end, __sub = function() return "left sub" end})
local R = setmetatable({}, {__add = function() return "right" end})
local N = setmetatable({}, {})
print(L + R, R + L, L + 1, 1 + L, R + 1, 1 + R)
print(N + L, L + N, N + R)
print(L - R, R - L)
print("abc" + L, L + "abc")
-- No handler on either side.
print(pcall(function() return N + N end))
print(pcall(function() return N + 1 end))
print(pcall(function() local s = "abc" return N * s end))
-- The metatable's field is looked up when the operation happens.
local mt = {}
local X = setmetatable({}, mt)
print(pcall(function() return X + 1 end))
mt.__add = function() return "now" end
print(X + 1)
-- A __index on the metatable does not provide metamethods (rawget is used).
local meta_with_index = setmetatable({}, {__index = {__add = function() return "inherited" end}})
local Y = setmetatable({}, meta_with_index)
print(pcall(function() return Y + 1 end))
-- __unm: only one operand; a table without __unm is an error.
local U = setmetatable({}, {__unm = function(a) return "negated" end})
print(-U, pcall(function() return - -U end))
print(pcall(function() return -N end))
-- __mod/__pow with number on the left.
local P = setmetatable({}, {__mod = function(a, b) return type(a) .. "%" .. type(b) end,
  __pow = function(a, b) return type(a) .. "^" .. type(b) end})
print(2 % P, P % 2, 2 ^ P, P ^ 2)
-- Different handlers, same operator: the left one wins even if the right was created
-- first or has a "better" result.
local seen = {}
local function mk(name) return setmetatable({}, {__mul = function(a, b) seen[#seen + 1] = name return name end}) end
local m1, m2 = mk("m1"), mk("m2")
print(m1 * m2, m2 * m1, 5 * m2, m1 * 5)
print(table.concat(seen, ","))
