-- Exponentiation: right associative, binds tighter than unary minus, always floating
-- point (C pow), with fractional and negative exponents and the special cases of pow.
local two, three, half = 2, 3, 0.5
print("basic", two ^ 10, three ^ 3, 10 ^ 0, 10 ^ 1, 10 ^ -1, two ^ -2)
print("fractional", 4 ^ half, 27 ^ (1 / 3), two ^ 0.5, 100 ^ 1.5)
print("right assoc", two ^ three ^ two, (two ^ three) ^ two, 2 ^ 3 ^ 2)
print("unary minus", -two ^ 2, (-two) ^ 2, -2 ^ 2, 2 ^ -1)
print("negative base", (-two) ^ 3, (-8) ^ (1 / 3), (-two) ^ 0.5)
print("big", two ^ 1023, two ^ 1024, two ^ -1074, two ^ -1080, 10 ^ 308, 10 ^ 309)
local zero, one = 0, 1
local inf, nan = one / zero, zero / zero
print("zero", zero ^ zero, zero ^ 1, zero ^ -1, (-zero) ^ -1, (-zero) ^ 3)
print("inf", inf ^ 0, inf ^ -1, two ^ inf, two ^ -inf, half ^ inf, (-inf) ^ 3)
print("nan", nan ^ 0, one ^ nan, nan ^ 1, two ^ nan)
print("literal", 2 ^ 8, 9 ^ 0.5, 2 ^ 0.5)
local p = 1
for i = 1, 10 do p = p * 1.5 end
print("loop vs pow", p, 1.5 ^ 10, p == 1.5 ^ 10)
