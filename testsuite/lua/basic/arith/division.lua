-- Division is always floating point; dividing by zero gives signed infinities, and 0/0
-- gives a NaN whose sign lua5.1 prints ("-nan" for the default NaN on x86-64).
local a, b, c = 7, 2, 0
print("exact", a / b, 8 / 2, -9 / 3, 1 / 4, 1 / 8)
print("inexact", a / 3, 1 / 3, 2 / 3, -a / 3, 1 / 7)
print("by zero", a / c, -a / c, c / c, -(c / c))
local nz = -c
print("by -zero", a / nz, -a / nz, c / nz)
print("tiny", 1 / 1e308, 1e-300 / 1e10)
print("large", 1e308 / 1e-10, 2^1023 / 0.5)
print("repeated", a / b / b / b, a / (b / b))
print("literal", 7 / 2, 1 / 3, 10 / 4)
-- Division by a variable that is zero only at run time is never folded.
for i = -2, 2 do print("1/" .. i, 1 / i) end
