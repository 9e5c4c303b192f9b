-- Lua 5.1 modulo is a - floor(a/b)*b: the result takes the sign of the divisor, and it
-- is defined for fractions.
local function show(a, b)
  print(a .. " % " .. b, a % b)
end
show(5, 3)
show(-5, 3)
show(5, -3)
show(-5, -3)
show(6, 3)
show(-6, 3)
show(0, 7)
show(5.5, 2)
show(-5.5, 2)
show(5.5, -2)
show(5, 0.75)
show(-5, 0.75)
show(0.3, 0.1)
show(1e15 + 1, 2)
show(2^53, 3)
show(7, 1)
show(7.25, 1)
show(-7.25, 1)
show(1, 3)
show(-1, 3)
show(3, 1e300)
show(-3, 1e300)
local a, b = 17, 5
print("locals", a % b, -a % b, a % -b, (a + 0.5) % b)
print("literal", 17 % 5, -17 % 5, 5.25 % 0.5)
-- x - x % 1 is floor(x), the usual way to round down without the math library.
local x = 3.7
print("floor", x - x % 1, -x - -x % 1, 3 - 3 % 1)
