-- Lua 5.1 has one number type (double): integral values print without a decimal
-- point, 1 == 1.0, division always gives a double, integer precision is exact up to
-- 2^53, and 5.3 syntax like `//` or integer literals does not exist.
print(1 == 1.0, 3 / 1, 6 / 2, 7 / 2, 2^10, 10 / 4 * 4)
print(1e0, 1.0, 100.0, 5 % 3.0, 2.5 * 2, 0.5 + 0.5)
print(math.floor(3.9), math.ceil(3.1), math.floor(-3.5), math.ceil(-3.5))
print(math.type, math.tointeger, type(1), type(1.5))
print(loadstring("return 7 // 2"))
print(loadstring("return 1 & 2"))
-- Exact integers up to 2^53.
local big = 2^53
print(big == big + 1, big - 1 == big, string.format("%.0f", big), string.format("%.0f", big + 2))
print(9007199254740993 == 9007199254740992, 2^53 + 1 == 2^53)
-- Integral results of float operations.
print(0.1 * 10, 0.5 * 4, 1.5 + 1.5, 10 / 2.5, 3 - 0.5 - 0.5)
-- Results close to but not exactly integers print with %.14g rounding.
print(0.1 * 3, 1 - 1e-15, 1 + 1e-14, 1 + 1e-13)
print(0.1 * 3 == 0.3, 1 - 1e-15 == 1)
-- Integer-valued floats as table keys and loop bounds.
local t = {}
t[2.0] = "two"
t[4 / 2 + 1] = "three"
print(t[2], t[3])
local n = 0
for i = 1.0, 3.0 do n = n + i end
print(n)
-- Modulo and integer division idioms.
print(17 % 5, -17 % 5, 17 % -5, 5.5 % 2, math.floor(17 / 5), math.fmod(-17, 5))
-- Hex literals are integers; large ones are exact up to 2^53.
print(0x10, 0xFFFFFFFF, 0x100000000, 0x1FFFFFFFFFFFFF)
-- string.format with integral floats.
print(string.format("%d %5.1f %g %g %g", 3.0, 2, 1e20, 0.5, 100))
