-- +, - and * on integers and fractions, with operands in locals so the VM (not the
-- compiler's constant folding) computes them, plus a few literal-only expressions.
local a, b, c, d = 7, 3, 2.5, -4
print("add", a + b, a + c, c + c, a + d, d + d, 0.1 + 0.7)
print("sub", a - b, b - a, a - c, d - a, c - c, 1 - 0.9)
print("mul", a * b, a * c, c * c, a * d, d * d, 0.1 * 3)
print("chain", a + b - c * d, a * b * c * d, a - b - c - d)
print("literal", 7 + 3, 7 - 10, 6 * 7, 2.5 * 4, 1 + 2 * 3 - 4)
-- Sums of many terms keep full double precision until printing.
local s = 0
for i = 1, 10 do s = s + 0.1 end
print("sum", s, s == 1, s - 1)
local big = 2^53
print("2^53", big, big + 1, big + 1 == big, big + 2, big - 1)
print("large", 1e300 * 1e8, -1e300 * 1e8, 123456789 * 987654321)
local x = 1
x = x + 1
x = x * 3
x = x - 10
print("update", x)
