-- Generators with coroutines: ranges, filtered/mapped streams, permutations, and
-- fibonacci; each consumer pulls values until the generator ends.
local function gen(f) return coroutine.wrap(f) end
local function range(a, b, step)
  return gen(function() for i = a, b, step or 1 do coroutine.yield(i) end end)
end
local function map(g, f) return gen(function() for v in g do coroutine.yield(f(v)) end end) end
local function filter(g, p) return gen(function() for v in g do if p(v) then coroutine.yield(v) end end end) end
local function take(g, n)
  return gen(function()
    if n <= 0 then return end
    local k = 0
    for v in g do
      coroutine.yield(v)
      k = k + 1
      if k >= n then return end
    end
  end)
end
local function collect(g) local t = {} for v in g do t[#t + 1] = v end return table.concat(t, " ") end
print(collect(range(1, 10)))
print(collect(range(10, 1, -3)))
print(collect(map(range(1, 5), function(x) return x * x end)))
print(collect(filter(range(1, 20), function(x) return x % 3 == 0 end)))
print(collect(take(map(filter(range(1, 100), function(x) return x % 2 == 1 end), function(x) return x * 10 end), 5)))
-- Infinite fibonacci stream.
local function fib()
  return gen(function()
    local a, b = 0, 1
    while true do coroutine.yield(a) a, b = b, a + b end
  end)
end
print(collect(take(fib(), 15)))
-- Permutations (classic PIL example).
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a)
  else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local function permutations(a) return gen(function() permgen(a) end) end
for p in permutations({"a", "b", "c"}) do print(table.concat(p)) end
-- Generators that return values at the end (ignored by for; seen by the last call).
local g = gen(function() coroutine.yield(1) return "last" end)
print(g(), g())
-- Interleaving two generators.
local g1, g2 = range(1, 3), range(10, 30, 10)
for _ = 1, 3 do io.write(g1(), ":", g2(), " ") end
print()
