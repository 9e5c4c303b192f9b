-- Numeric comparisons, including fractions, negative numbers, infinities, zero signs and
-- NaN (every ordered comparison with NaN is false, so "not (a < b)" is not "a >= b").
local a, b, c = 1, 2, 1.0
print("lt", a < b, b < a, a < c, -1 < 0, -2.5 < -2, 0.1 < 0.2)
print("le", a <= b, b <= a, a <= c, -1 <= -1, 1e308 <= 1e308)
print("gt", a > b, b > a, a > c, 3 > 2.999999)
print("ge", a >= b, b >= a, a >= c, -0.5 >= -0.25)
print("eq", a == c, a == b, a ~= b, a ~= c, 2^53 == 2^53 + 1)
local zero, one = 0, 1
local inf, nan = one / zero, zero / zero
local nz = -zero
print("zero", zero == nz, zero < nz, zero <= nz, nz >= zero)
print("inf", inf > 1e308, -inf < -1e308, inf == inf, inf >= inf, -inf < inf)
print("nan <", nan < 1, nan > 1, nan <= 1, nan >= 1, 1 < nan, 1 >= nan)
print("nan eq", nan == nan, nan ~= nan, not (nan < 1) == (nan >= 1))
local x = 5
print("results are booleans", x < 10, (x < 10) == true, (x > 10) == false)
-- Comparison operands are evaluated left to right; literals on either side.
print(1 < x, x < 1, 5 <= x, x <= 5, 10 > x, x > 10)
