-- Proper tail calls: `return f(args)` reuses the frame, so a million-deep tail
-- recursion does not overflow the stack; it works with accumulators,
-- different argument counts and through locals, upvalues, globals and table fields.
local function count(n, acc)
  if n == 0 then return acc end
  return count(n - 1, acc + 1)
end
print(count(1000000, 0))
function global_loop(n) if n == 0 then return "global done" end return global_loop(n - 1) end
print(global_loop(1000000))
local M = {}
function M.loop(n) if n == 0 then return "field done" end return M.loop(n - 1) end
print(M.loop(1000000))
local obj = {n = 0}
function obj:step(k) if k == 0 then return self.n end self.n = self.n + 1 return self:step(k - 1) end
print(obj:step(1000000))
-- (Deep tail recursion of vararg functions is in vararg_tail_recursion.lua.)
-- Returning multiple values through a chain of tail calls.
local function multi(n, a, b) if n == 0 then return a, b end return multi(n - 1, b, a) end
print(multi(1000001, "x", "y"))
-- Tail call to a function with more parameters than arguments.
local function wide(n, a, b, c, d, e)
  if n == 0 then return a, b, c, d, e end
  return wide(n - 1, n)
end
print(wide(1000000))
-- Tail call into a C function and into a callable table.
local function to_c(n) if n == 0 then return select("#", 1, 2, 3) end return to_c(n - 1) end
print(to_c(100000))
local callable = setmetatable({}, {__call = function(self, n) return "called with " .. n end})
local function to_callable(n) return callable(n) end
print(to_callable(7))
-- A tail call in a closure loop.
local function make()
  local calls = 0
  local function loop(n) calls = calls + 1 if n == 0 then return calls end return loop(n - 1) end
  return loop
end
print(make()(500000))
