-- string.format's conversions without the C library (%d, %i, %.14g, %s) against 5.1's
-- snprintf: signs, -0, huge and non-finite numbers, numeric strings, strings with NULs.
local vals = {0, -0, 1, -1, 1.5, -2.25, 1e14, 1e15, 123456789012345678, 2^53, 2^63, -2^63, 1/0, -1/0, 0/0, 3.14159265358979, 1e-5, 1e-300, 5e-324, "42", " 17 ", "0x10", 2^31, -2^31-1, 1e100}
for _, v in ipairs(vals) do
  print(pcall(string.format, "%d|%i|%.14g|%s", v, v, v, v))
end
print(string.format("%s|%s", "a\0b", ("x"):rep(3)))
print(#string.format("%s", "a\0b"), #string.format("%s", ("a\0"):rep(60)))
print(pcall(string.format, "%d", "abc"))
print(pcall(string.format, "%s"))
print(string.format("%5d|%-5d|%05.1f|%.3g|%g", 42, 42, 3.14159, 2/3, 1e20))
