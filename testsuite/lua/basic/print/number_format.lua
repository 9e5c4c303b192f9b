-- Numbers print with "%.14g": integral values without ".0", at most 14 significant
-- digits, exponent form with at least two exponent digits outside [1e-5, 1e15).
print(1, 10, 100, 1000000, 3.0, -7, -7.0)
print(0.5, 0.1, 0.2, 0.3, 1.5, -2.25)
print(1/3, 2/3, 10/3, -1/3)
print(0.1 + 0.2, 0.1 + 0.2 == 0.3, 1 - 0.9)
print(100000000000000, 1e14, 1e15, 1e16, 123456789012345, 99999999999999)
print(12345678901234, 123456789012345.5, 2^53, 2^63, 2^64)
print(1e-4, 1e-5, 0.0001234, 0.00001234, 1.5e-7)
print(1e21, 1e100, 1e300, 1.7976931348623157e308, 2.2250738585072014e-308)
print(3.14159265358979, 2.718281828459045, 1.0000000000001, 1.00000000000001)
print(123.456, 1234.5678, 0.999999999999999, 9.99999999999999)
print(-1e15, -1e-5, -123456.789)
-- Large integers built by arithmetic print like literals of the same value.
local x = 1
for i = 1, 20 do x = x * 10 end
print(x, x + 1, x / 1e20)
local p = 1
for i = 1, 60 do p = p * 2 end
print(p, p - 1, p + 1)
