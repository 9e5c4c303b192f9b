-- string.dump and loading its chunks: functions of every shape run the same after a round
-- trip (nested functions, varargs and 5.1's compatibility `arg` table, upvalues, which come
-- back nil, constants of every type), dumps do not change once a function has run, and
-- damaged or foreign chunks are refused with a message.
local function roundtrip(f, ...)
  local g = assert(loadstring(string.dump(f)))
  return g(...)
end
print(roundtrip(function(a, b) return a + b, a .. b, a < b end, 3, 4))
print(roundtrip(function(...) return arg.n, arg[1], arg[2] end, 5, 6))
print(roundtrip(function(...) return select('#', ...), ... end, 1, nil, 3))
print(roundtrip(function(n)
  local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
  local t = {}
  for i = 1, n do t[#t + 1] = fib(i) end
  return table.concat(t, ",")
end, 10))
-- numeric loops with a step known and unknown, constant integer indices (read and written)
print(roundtrip(function(step)
  local t = {10, 20, 30}
  t[4] = t[1] + t[3]
  t[2] = nil
  local out = {}
  for i = 1, 4 do out[#out + 1] = tostring(t[i]) end
  for i = 4, 1, step do out[#out + 1] = i end
  for i = 1, 2, 0.5 do out[#out + 1] = i end
  return table.concat(out, " "), t[65535], t[65536]
end, -2))
local up = 10
local function uses_upvalue() return up end
print(roundtrip(uses_upvalue))
print(roundtrip(function() return nil, true, false, -1.5, 1e300, "str\0ing", 2^53 end))
local function counter()
  local n = 0
  return function() n = n + 1 return n end
end
local c = roundtrip(counter)
print(c(), c(), c())
local function loop(t) local s = 0 for k, v in pairs(t) do s = s + v end for i = #t, 1, -1 do s = s + t[i] end return s end
local before = string.dump(loop)
print(loop({1, 2, 3, x = 4}), loop({5}))
print(string.dump(loop) == before)
local d = string.dump(loop)
print(loadstring(d:sub(1, #d - 1)))
print(loadstring(d:sub(1, 5)))
print(pcall(string.dump, print))
