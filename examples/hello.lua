-- A first program: recursion, arithmetic, strings, loops.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local total = 0
for i = 1, 25 do
  total = total + fib(i) % 7
end
print("hello from the generated interpreter", fib(25), total, 2 ^ 0.5, "10" + 1)
