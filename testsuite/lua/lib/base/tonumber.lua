-- tonumber: decimal strings (signs, exponents, surrounding whitespace, hex "0x"), invalid
-- strings, numbers and other types, explicit bases 2..36 with upper and lower case digits,
-- digits out of range for the base, and the "base out of range" error.
print(tonumber("10"), tonumber("  10  "), tonumber("\t\n12\r "), tonumber("-7"), tonumber("+7"))
print(tonumber("1e2"), tonumber("1E-2"), tonumber(".5"), tonumber("5."), tonumber("-.5e1"))
print(tonumber("0x10"), tonumber("0X1f"), tonumber("  0xff  "), tonumber("-0x10"))
print(tonumber(""), tonumber(" "), tonumber("abc"), tonumber("1 2"), tonumber("1e"), tonumber("--1"))
print(tonumber("0x"), tonumber("1..2"), tonumber("12a"), tonumber("e5"))
print(tonumber(42), tonumber(-0.5), tonumber(nil), tonumber(true), tonumber({}))
print(tonumber("1e308"), tonumber("-1e308"), tonumber("123456789012345678"))
for base = 2, 36 do
  io.write(base, ":", tostring(tonumber("10", base)), ",", tostring(tonumber("11", base)), " ")
end
print()
print(tonumber("ff", 16), tonumber("FF", 16), tonumber("zz", 36), tonumber("ZZ", 36), tonumber("Zz", 36))
print(tonumber("777", 8), tonumber("8", 8), tonumber("1010", 2), tonumber("102", 2))
print(tonumber("  ff  ", 16), tonumber("ff ", 16), tonumber(" ", 16), tonumber("", 16))
print(tonumber("-ff", 16), tonumber("-101", 2), tonumber("+1", 10))
print(tonumber("1.5", 10), tonumber("1e2", 10), tonumber("0x10", 16), tonumber("10", 10))
print(tonumber("zzzzzzzzzz", 36), tonumber("7fffffff", 16), tonumber("ffffffff", 16))
print(tonumber(10, 16), tonumber(255, 16), tonumber(1.5, 10))
print(pcall(tonumber, "10", 1))
print(pcall(tonumber, "10", 37))
print(pcall(tonumber, "10", 0))
print(pcall(tonumber, "10", "x"))
print(pcall(tonumber))
print(pcall(function() return tonumber("1", 99) end))
print(pcall(tonumber, {}, 16))
