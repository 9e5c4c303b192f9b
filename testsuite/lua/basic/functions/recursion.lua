-- Recursion: a `local function` sees itself, global functions recurse and call each
-- other (mutual recursion), and recursion reaches a good depth. Results are returned
-- from a local rather than as `return f(x)`, which would be a tail call (tail_calls.lua).
local function fact(n)
  if n <= 1 then return 1 end
  return n * fact(n - 1)
end
print(fact(0), fact(1), fact(5), fact(10), fact(20), fact(25))
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
print(fib(0), fib(1), fib(10), fib(20))
function is_even(n)
  if n == 0 then return true end
  local r = is_odd(n - 1)
  return r
end
function is_odd(n)
  if n == 0 then return false end
  local r = is_even(n - 1)
  return r
end
print(is_even(10), is_odd(10), is_even(7), is_odd(7))
-- Ackermann grows the stack and the call count quickly.
function ack(m, n)
  if m == 0 then return n + 1 end
  local r
  if n == 0 then r = ack(m - 1, 1) else r = ack(m - 1, ack(m, n - 1)) end
  return r
end
print(ack(0, 0), ack(1, 2), ack(2, 3), ack(3, 3))
-- Deep (non-tail) recursion.
local function depth(n)
  if n == 0 then return 0 end
  return 1 + depth(n - 1)
end
print(depth(100), depth(5000))
-- Recursion building a string.
local function binary(n)
  if n < 2 then return "" .. n end
  return binary((n - n % 2) / 2) .. n % 2
end
print(binary(0), binary(1), binary(10), binary(255), binary(1024))
-- Tower of Hanoi move count and the first moves, via a global accumulator.
moves = ""
count = 0
function hanoi(n, from, to, via)
  if n == 0 then return end
  hanoi(n - 1, from, via, to)
  count = count + 1
  if count <= 7 then moves = moves .. from .. to .. " " end
  hanoi(n - 1, via, to, from)
end
hanoi(10, "A", "C", "B")
print(count, moves)
