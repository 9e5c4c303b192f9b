-- Closures: creating many closures and reading/writing their upvalues (shared counters,
-- accumulators, function composition, currying, map/filter/reduce with function arguments).
local ROUNDS = 1500
local SIZE = 1000

local function make_counter(step)
  local n = 0
  return function() n = n + step; return n end,
         function() return n end,
         function() n = 0 end
end

local function compose(f, g) return function(x) return f(g(x)) end end
local function curry3(f) return function(a) return function(b) return function(c) return f(a, b, c) end end end end

local function map(t, f)
  local r = {}
  for i = 1, #t do r[i] = f(t[i]) end
  return r
end
local function filter(t, p)
  local r = {}
  for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end
  return r
end
local function reduce(t, f, acc)
  for i = 1, #t do acc = f(acc, t[i]) end
  return acc
end

local data = {}
for i = 1, SIZE do data[i] = (i * 37) % 101 end

local check = 0
for round = 1, ROUNDS do
  -- counters sharing one upvalue
  local inc, get, reset = make_counter(round % 5 + 1)
  for _ = 1, 50 do inc() end
  check = check + get()
  reset()
  -- a chain of composed closures, each capturing its own constant
  local f = function(x) return x end
  for k = 1, 10 do
    local kk = k
    f = compose(function(x) return x + kk end, f)
  end
  -- map/filter/reduce with fresh closures over loop locals
  local scale = round % 7 + 1
  local mapped = map(data, function(v) return v * scale + f(0) end)
  local kept = filter(mapped, function(v) return v % 3 ~= round % 3 end)
  local sum = reduce(kept, function(a, v) return a + v end, 0)
  local maxv = reduce(kept, function(a, v) if v > a then return v end return a end, 0)
  check = (check + sum + maxv * 3) % 1000000007
  -- curried calls: four closures created per call
  local add3 = curry3(function(a, b, c) return a * 100 + b * 10 + c end)
  for i = 1, 20 do check = check + add3(i % 10)(round % 10)(i % 3) end
  -- closures in a table that update each other's upvalues
  local fns = {}
  local shared = 0
  for i = 1, 20 do
    local own = i
    fns[i] = function()
      shared = shared + own
      own = own + 1
      return shared
    end
  end
  for _ = 1, 10 do for i = 1, #fns do fns[i]() end end
  check = (check + shared) % 1000000007
end
print("checksum", check)

-- a closure-based iterator and an accumulator generator
local function range(n)
  local i = 0
  return function()
    i = i + 1
    if i <= n then return i end
  end
end
local function accumulator(total)
  return function(x) total = total + x; return total end
end
local acc = accumulator(0)
local last
for i in range(800000) do last = acc(i % 13) end
print("accumulated", last)
