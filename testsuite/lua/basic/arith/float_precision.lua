-- Double-precision behaviour that an implementation must not "improve": rounding of
-- inexact sums, loss of precision above 2^53, catastrophic cancellation, and equality of
-- values that print the same with 14 digits but differ in the last bits.
local a, b = 0.1, 0.2
local s = a + b
print(s, s == 0.3, s - 0.3, s > 0.3)
print(1e16 + 1, 1e16 + 1 == 1e16, 1e16 + 2 == 1e16)
local x = 1
local steps = 0
while x + 1 ~= x do
  x = x * 2
  steps = steps + 1
end
print("first power of 2 where x+1 == x", steps, x)
local eps = 1
while 1 + eps / 2 > 1 do eps = eps / 2 end
print("epsilon", eps, eps == 2^-52)
print((1 + 1e-15) - 1, (1e20 + 1) - 1e20, 1e20 - (1e20 - 1))
local third = 1 / 3
print(third * 3, third * 3 == 1, third + third + third == 1)
local t = 0
for i = 1, 1000 do t = t + 0.001 end
print(t, t == 1, t - 1)
print(100 * 1.1, 100 * 1.1 == 110, 0.7 + 0.1, 0.7 + 0.1 == 0.8)
