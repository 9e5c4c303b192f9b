-- tonumber with and without a base, invalid inputs giving nil, and tostring of numbers
-- (formatted with %.14g: 14 significant digits, exponent form for large and small).
print(tonumber("42"), tonumber("  42  "), tonumber("4.2e1"), tonumber("0x2A"), tonumber(".5"))
print(tonumber(""), tonumber(" "), tonumber("abc"), tonumber("12a"), tonumber("1e"), tonumber("--1"))
print(tonumber(nil), tonumber(true), tonumber({}), tonumber(42), tonumber(-0.5))
-- Bases.
print(tonumber("ff", 16), tonumber("FF", 16), tonumber("777", 8), tonumber("1010", 2))
print(tonumber("zz", 36), tonumber("Zz", 36), tonumber("10", 36), tonumber("9", 8))
print(tonumber("  11  ", 2), tonumber("1.5", 10), tonumber("-ff", 16), tonumber("", 10))
print(tonumber("8", 8), tonumber("12", 3), tonumber("0x10", 16), tonumber("10", 10))
print(pcall(tonumber, "10", 1), pcall(tonumber, "10", 37))
-- tostring of numbers.
print(tostring(1), tostring(1.0), tostring(-1), tostring(0.1), tostring(1/3))
print(tostring(100000000000000), tostring(1e15), tostring(123456789012345678))
print(tostring(1e-4), tostring(1e-5), tostring(0.00012345), tostring(1.5e-10))
print(tostring(2^53), tostring(2^31), tostring(2^32), tostring(-2^63))
print(tostring(3.14159265358979), tostring(math.pi), tostring(-math.pi))
print(tostring(12345678901234), tostring(123456789012345), tostring(1234567890123456))
print(tostring(0.1 + 0.2), tostring(1 - 0.9), tostring(100 / 3))
print(tostring(1/0), tostring(-1/0), tostring(1e308 * 10))
local z = 0
print(tostring(-z), tostring(z), -z == z)
-- Round trips through strings.
for _, v in ipairs({1, 0.5, 1/3, 1e100, 2^53 + 1, 123.456}) do
  io.write(tostring(tonumber(tostring(v)) == v), " ")
end
print()
-- tostring(x) and x .. "" agree.
for _, v in ipairs({7, -7.25, 1e20, 1e-20, 2^40}) do io.write(tostring(v) == v .. "" and "same " or "diff ") end
print()
