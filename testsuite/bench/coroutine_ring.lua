-- Coroutines: a ring of threads passing a token (resume/yield with values), a pipeline of
-- coroutine.wrap generators and filters (prime sieve), and a producer yielding several values.
local RING_SIZE = 503
local HOPS = 3500000
-- the sieve nests one resume per filter: lua5.1 allows fewer than 200 (LUAI_MAXCCALLS)
local PRIMES = 150
local SIEVE_ROUNDS = 10
local PRODUCED = 1500000

-- 1. token ring: each thread receives a token, and yields it decremented to the scheduler,
-- which hands it to the next thread in the ring.
local threads = {}
local visits = {}
for id = 1, RING_SIZE do
  visits[id] = 0
  threads[id] = coroutine.create(function(token)
    while true do
      visits[id] = visits[id] + 1
      if token == 0 then return id end
      token = coroutine.yield(token - 1)
    end
  end)
end
local token, id = HOPS, 1
local winner
while true do
  local ok, v = coroutine.resume(threads[id], token)
  if not ok then error(v) end
  if coroutine.status(threads[id]) == "dead" then winner = v break end
  token = v
  id = id % RING_SIZE + 1
end
print("ring winner", winner)
local maxv, minv = 0, math.huge
for i = 1, RING_SIZE do
  if visits[i] > maxv then maxv = visits[i] end
  if visits[i] < minv then minv = visits[i] end
end
print("visits min/max", minv, maxv)
print("dead threads", (function()
  local n = 0
  for i = 1, RING_SIZE do if coroutine.status(threads[i]) == "dead" then n = n + 1 end end
  return n
end)())

-- 2. a prime sieve as a chain of coroutine.wrap filters
local function counter(from)
  return coroutine.wrap(function()
    local n = from
    while true do coroutine.yield(n); n = n + 1 end
  end)
end
local function filter(p, source)
  return coroutine.wrap(function()
    while true do
      local n = source()
      if n % p ~= 0 then coroutine.yield(n) end
    end
  end)
end
local psum, last = 0, 0
for _ = 1, SIEVE_ROUNDS do
  local source = counter(2)
  for i = 1, PRIMES do
    local p = source()
    psum = psum + p
    last = p
    source = filter(p, source)
  end
end
print("primes", PRIMES, "last", last, "sum", psum)

-- 3. producer/consumer passing several values per switch
local producer = coroutine.create(function(n)
  for i = 1, n do coroutine.yield(i, i * 2, i % 7) end
  return "done"
end)
local a, b, c = 0, 0, 0
local ok, x, y, z = coroutine.resume(producer, PRODUCED)
while coroutine.status(producer) ~= "dead" do
  a, b, c = a + x, b + y, c + z
  ok, x, y, z = coroutine.resume(producer)
end
print("producer", a, b, c, x)
