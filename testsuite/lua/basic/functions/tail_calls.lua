-- `return f(args)` is a proper tail call in Lua: it reuses the caller's frame, so tail
-- recursion of any depth runs in constant stack space (non-tail recursion this deep
-- overflows lua5.1's stack). The callee's result becomes the caller's result, including
-- "no value" when the callee returns nothing.
local function count_down(n, acc)
  if n == 0 then return acc end
  return count_down(n - 1, acc + 1)
end
print(count_down(10, 0), count_down(300000, 0))
function ping(n)
  if n == 0 then return "ping" end
  return pong(n - 1)
end
function pong(n)
  if n == 0 then return "pong" end
  return ping(n - 1)
end
print(ping(0), ping(1), ping(250001), pong(250001))
local function gcd(a, b)
  if b == 0 then return a end
  return gcd(b, a % b)
end
print(gcd(1071, 462), gcd(2^40, 6^20))
function nothing() end
function forward() return nothing() end
print(forward())
print(forward() == nil)
function apply(f, x) return f(x) end
local function inc(x) return x + 1 end
print(apply(inc, 41), apply(print, "printed by a tail-called print"))
