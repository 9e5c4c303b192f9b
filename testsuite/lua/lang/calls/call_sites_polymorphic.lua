-- Call sites that see several callees: in JIT code each site keeps a chain of stubs keyed by the
-- callee (direct mode), turns to keying by function prototype when it sees closures of one
-- prototype (closure mode), and stops adding stubs after a few (megamorphic). Every path must
-- call the right function with the right arguments and results.

local function site(f, a, b) return f(a, b) end          -- one call site for everything below
local function tail_site(f, a, b) return f(a, b) end     -- (a tail call)
local function site3(f, ...) local x, y, z = f(...); return x, y, z end

-- Direct mode: a handful of distinct functions, in turns, then more than a site keeps.
local fs = {}
for k = 1, 9 do
  fs[k] = loadstring("local a, b = ...; return a * " .. k .. " + (b or 0), " .. k)
end
local sum = 0
for round = 1, 30 do
  for k = 1, 2 + round % 8 do
    local v, id = site(fs[k], round, k)
    assert(id == k)
    sum = sum + v
  end
end
print("direct", sum)

-- Closure mode: closures of one prototype (a counter factory), then another prototype mixed
-- in, then closures of that one.
local function counter(step)
  local n = 0
  return function(reset) if reset then n = 0 end n = n + step; return n end
end
local function adder(x) return function(y) return x + y end end
local total = 0
for round = 1, 40 do
  local c = counter(round)
  for _ = 1, 3 do total = total + site(c) end
  total = total + site(c, true)
  if round % 3 == 0 then total = total + site(adder(round), 0.5) end
  if round % 5 == 0 then total = total + site(fs[round % 9 + 1], 1, 1) end
end
print("closure", total)

-- The same through tail calls, and with three results.
local t2 = 0
for round = 1, 25 do
  t2 = t2 + tail_site(counter(round)) + tail_site(adder(round), round)
  local a, b, c = site3(function(...) return ... end, round, round * 2, round * 3)
  t2 = t2 + a + b + c
  local p, q = site3(fs[round % 9 + 1], round, 2)
  t2 = t2 + p + q
end
print("tail", t2)

-- Natives and __call at a site with stubs; a non-callable value there.
local callable = setmetatable({}, { __call = function(self, a, b) return "call", a, b end })
local mixed = { tostring, callable, fs[1], math.max, counter(2), callable, select }
for round = 1, 3 do
  for i, f in ipairs(mixed) do
    print(round, i, site3(f, round, i))
  end
end
for _, v in ipairs({ 1, "s", {}, true }) do
  print(pcall(site, v, 1, 2))
end

-- Callees that die while a site's stub names them, and new functions where they were.
local function make(i)
  if i % 3 == 0 then return function(a) return "three", a end end
  if i % 3 == 1 then return function(a) return "one", a end end
  return loadstring("local a = ...; return 'loaded', a")
end
local seen = {}
for i = 1, 120 do
  local f = make(i)
  local tag, a = site(f, i)
  assert(a == i)
  seen[tag] = (seen[tag] or 0) + 1
  f = nil
  if i % 7 == 0 then collectgarbage() end
end
print("after gc", seen.three, seen.one, seen.loaded)

-- A function redefined under a site (a new function value at the same global).
function G(a) return a + 1 end
local function call_g(a) return G(a) end
local g = 0
for i = 1, 50 do
  g = g + call_g(i)
  if i == 25 then function G(a) return a * 100 end end
end
print("redefined", g)
