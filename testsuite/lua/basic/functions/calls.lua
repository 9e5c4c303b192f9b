-- Defining and calling functions: global and local functions, the `function name()`
-- and `name = function()` forms, calls as statements and in expressions, nested calls.
function add(a, b)
  return a + b
end
local function mul(a, b)
  return a * b
end
sub = function(a, b) return a - b end
local div = function(a, b) return a / b end
print(add(2, 3), mul(4, 5), sub(10, 4), div(9, 2))
print(add(mul(2, 3), sub(10, add(1, 2))))
print(add(1, 2) * mul(3, 4) - div(10, 5))
-- A call as a statement discards its result.
add(1, 1)
-- Functions calling global functions.
function square(x) local r = mul_global(x, x) return r end
function mul_global(a, b) return a * b end
print(square(7), square(-1.5))
-- A function called many times in a loop.
local acc = 0
for i = 1, 100 do acc = add(acc, i) end
print(acc)
-- Calling through parenthesised expressions and string arguments without parens.
print((add)(1, 2))
function shout(s) return s .. "!" end
print(shout "hi", shout[[long]])
-- Redefining a global function takes effect for later calls.
function version() return 1 end
print(version())
function version() return 2 end
print(version())
