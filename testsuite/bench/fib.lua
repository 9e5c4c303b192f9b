-- Recursive Fibonacci: dominated by Lua-to-Lua calls and returns, comparisons and
-- additions on small integers.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
print(fib(36))
