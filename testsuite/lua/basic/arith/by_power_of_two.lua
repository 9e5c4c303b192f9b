-- Division and modulo by a constant power of two (`x / 2`, `n % 4`, `x / 0.5`) compile to
-- DivPow2/ModPow2, which multiply by the reciprocal: every result must be the division's, bit
-- for bit, and every non-number operand must take the operator's usual path.

local function show(x)
  if x ~= x then return "nan" end
  if x == 0 then return (1 / x > 0) and "0" or "-0" end
  return string.format("%.17g", x)
end

local values = {
  0, -0, 1, -1, 2, 3, -3, 7, -7, 0.5, -0.5, 0.1, -0.1, 1e-300, -1e-300,
  2^-1074, -2^-1074, 2^-1022, 3 * 2^-1074, 2^52 + 1, 2^53, 2^53 + 2, -2^53,
  1e308, -1e308, 2^1023, 1 / 0, -1 / 0, 0 / 0, 123456789.123, -98765.4321,
}
-- (A literal -0 shares the constant 0, as in 5.1: made at run time it stays negative.)
local zero = 0
values[#values + 1] = -zero
values[#values + 1] = -zero * 2^-1074

-- Every eligible constant appears literally so the compiler sees it (a table of constants
-- would hide them behind a slot).
for _, x in ipairs(values) do
  print(show(x),
    show(x / 2), show(x % 2), show(x / 4), show(x % 4), show(x / 0.5), show(x % 0.5),
    show(x / 0.25), show(x % 0.25), show(x / 1024), show(x % 1024), show(x / 1), show(x % 1),
    show(x / -2), show(x % -2), show(x / -0.5), show(x % -0.5))
  print(show(x),
    show(x / 2^1022), show(x % 2^1022), show(x / 2^-1022), show(x % 2^-1022),
    show(x / 2^1023), show(x % 2^1023), show(x / 2^-1023), show(x % 2^-1023),
    -- Not eligible (the reciprocal is not a power of two, or overflows, or is zero): the
    -- ordinary operators, which must agree all the same.
    show(x / 3), show(x % 3), show(x / 2^-1074), show(x % 2^-1074), show(x / 0), show(x % 0))
end

-- The quotient feeding a loop: halvings and quarterings until a value drops below one,
-- with the remainders summed on the way (a loop-carried chain through both bytecodes).
local function digits(n)
  local sum, count = 0, 0
  while n >= 1 do
    local quarter = n % 4
    sum = sum + quarter + (n % 2) * 0.5
    n = (n - quarter) / 4
    count = count + 1
  end
  return sum, count
end
local total, steps = 0, 0
for n = 1, 3000, 7 do
  local s, c = digits(n * 1.5)
  total, steps = total + s, steps + c
end
print("digits", total, steps)

-- Strings convert, as for every arithmetic operator.
local s, hex, bad = "9", "0x10", "nine"
print(s / 2, s % 2, hex / 4, hex % 3, " 12 " / 0.5)
print(pcall(function() return bad / 2 end))
print(pcall(function() return bad % 2 end))

-- Metamethods see the constant itself (not its reciprocal), on the left and the right.
local mt = {
  __div = function(a, b) return "div", type(a), b end,
  __mod = function(a, b) return "mod", type(a), b end,
}
local t = setmetatable({}, mt)
print(t / 2, t % 4, t / 0.5, t % 0.25)
local r1, r2 = t / 2, t % 8
print(r1, r2)

-- Errors name the operand, as 5.1 does.
local function f(x) return x / 2 end
local function g(x) return x % 4 end
print(pcall(f, nil))
print(pcall(f, {}))
print(pcall(g, true))
print(pcall(function() local up = nil; return (function() return up % 2 end)() end))
print(pcall(function() return glob / 2 end))
print(pcall(function() local t = {} return t.field % 2 end))

-- The reciprocal shares the constant table with the function's own constants.
local function both(x) return x / 2, x * 0.5, x % 2, 0.5, 2 end
print(both(5))
print(both(-0.75))
