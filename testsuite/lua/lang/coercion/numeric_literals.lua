-- Numeric literal syntax in Lua 5.1: decimal with optional fraction and exponent, hex
-- integers (no hex fractions or binary exponents in the language), and what the lexer
-- rejects; plus how literals and strings that look alike are converted.
print(0, 00, 0.0, 0e0, 1e+0, 1E-0, 3., .3, 3.e1, .3e1)
print(0x0, 0xA, 0xa, 0Xa, 0xABCDEF, 0x7FFFFFFF, 0xFFFFFFFFFFFFF)
print(1e308, 1e309, -1e309, 1e-320 > 0, 2e-324 == 0)
print(123456789012345678901234567890)
print(0.1, 0.25, 0.3333333333333333, 2.5e-3, 6.02214076e23)
-- Malformed numbers are lexer errors.
local bad = {"return 1e", "return 0x", "return 1.2.3", "return 0xg", "return 1e+", "return 3x",
  "return 1_000", "return 08.5.1", "return .e1"}
for _, src in ipairs(bad) do
  local f, err = loadstring(src)
  print(src, f, err)
end
-- Leading zeros are decimal, not octal.
print(010, 0010.5, 09)
-- Negative literals are unary minus applied to a literal.
print(-1, - 1, -0x10, -.5, 2^-1, -2^2)
-- Long and exotic string-to-number conversions.
print(tonumber("0x7fffffff"), tonumber("1e400"), tonumber("-1e400"), tonumber("0x"), tonumber("1e+"))
print(tonumber("   0x1F   "), tonumber("\n\t12\r "))
-- A number followed by a method call needs parentheses.
print(loadstring("return 1:rep(2)"))
print(pcall(loadstring("return (1).x")))
