-- Recursive local functions: `local function f` can call itself, `local f = function`
-- cannot (f is the global inside), and mutually recursive locals need a forward
-- declaration.
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(10), fact(1), fact(20))
-- `local f = function` refers to the global f inside.
function g_fn() return "global" end
local g_fn = function(n) if n == 0 then return "local" end return g_fn(n - 1) end
print(g_fn(0), g_fn(1))
-- Forward-declared mutual recursion.
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(10), is_odd(7), is_even(7))
-- Recursion through an upvalue that gets replaced.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(20))
local orig = fib
-- Recursive closures capturing state.
local function make_walker()
  local visited = 0
  local function walk(t)
    visited = visited + 1
    for _, child in ipairs(t) do walk(child) end
  end
  return function(t) walk(t) return visited end
end
local tree = {{{}, {}}, {{{}}}, {}}
print(make_walker()(tree))
-- Recursive function stored in a table.
local M = {}
function M.sum(list, i)
  i = i or 1
  if i > #list then return 0 end
  return list[i] + M.sum(list, i + 1)
end
print(M.sum({1, 2, 3, 4, 5}))
-- Ackermann (moderately deep recursion).
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
print(ack(2, 3), ack(3, 3))
-- Recursion depth of a few thousand non-tail calls.
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(5000))
-- Y-combinator style anonymous recursion.
local Y = function(f)
  return (function(x) return x(x) end)(function(x) return f(function(...) return x(x)(...) end) end)
end
local yfact = Y(function(self) return function(n) if n == 0 then return 1 end return n * self(n - 1) end end)
print(yfact(6))
-- Hanoi.
local moves = 0
local function hanoi(n, a, b, c)
  if n == 0 then return end
  hanoi(n - 1, a, c, b)
  moves = moves + 1
  hanoi(n - 1, c, b, a)
end
hanoi(10, "A", "B", "C")
print(moves)
