-- Numeric literal forms: integers, decimals with and without digits on either side of
-- the point, exponents with and without sign, and hexadecimal (integer only in Lua 5.1).
print("int", 0, 1, 42, 1234567890)
print("dec", 3.0, 3.5, .5, 5., 0.25, 00012.5000)
print("exp", 1e0, 1e1, 1E2, 2.5e3, 1e-3, 2.5E-2, 7e+2, .5e1)
print("big", 1e15, 1e16, 1e100, 1e300, 123456789012345, 1234567890123456789)
print("small", 1e-5, 1e-100, 1e-300, 0.000001)
print("hex", 0x0, 0xff, 0XFF, 0xDeadBeef, 0x10, 0x7fffffff, 0xffffffffffff)
-- A literal ending in a hex digit 'E' is not an exponent, so this is 0x1E + 2.
print("hex-e", 0x1E+2, 0x1e-2)
-- Literals are plain numbers: arithmetic mixes them freely.
print("mix", 0x10 + 1e1 + .5, 1e2 / 0x4)
local a, b, c = 10, 2.5, 1e3
print("locals", a, b, c, a + b + c)
