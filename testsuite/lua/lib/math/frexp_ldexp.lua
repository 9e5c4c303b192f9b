-- math.frexp and math.ldexp: mantissa in [0.5, 1) and exponent for powers of two, fractions,
-- negative numbers, zero, infinities and subnormals, ldexp as the inverse (round trip), and
-- the argument errors.
for _, x in ipairs({1, 2, 3, 0.5, 0.1, -8, 1024, 1e300, 1e-300, 2^-1074, 123.456}) do
  local m, e = math.frexp(x)
  print(x, m, e, math.ldexp(m, e) == x)
end
print(math.frexp(0))
print(math.frexp(math.huge))
print(math.frexp(-math.huge))
print(math.ldexp(1, 10), math.ldexp(0.5, 1), math.ldexp(3, -1), math.ldexp(1, 1024), math.ldexp(1, -1075))
print(math.ldexp(-1, 3), math.ldexp(0, 100), math.ldexp(1.5, 2.9), math.ldexp("2", "3"))
print(pcall(math.frexp))
print(pcall(math.ldexp, 1))
print(pcall(math.ldexp, "x", 1))
print(pcall(function() return math.frexp("y") end))
