-- Unary minus: on numbers, on numeric strings (coerced), repeated, and its precedence
-- relative to ^ and the binary operators.
local a, b = 5, -2.5
print(-a, -b, - -a, -(-a), -(a + b), -a + b, -a * b)
local s = "10"
print(-s, -"3.5", -" 4 ", -"0x10")
local zero = 0
print(-zero, -(-zero), 0 - zero)
print(-a ^ 2, -(a ^ 2), (-a) ^ 2)
print(2 - -a, 2 - - -a, a - -b)
local x = 3
x = -x
print(x)
x = -x
print(x)
