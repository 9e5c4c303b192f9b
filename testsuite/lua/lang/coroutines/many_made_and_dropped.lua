-- Coroutines made and dropped by the thousand: their stacks are reused once the collector
-- frees them (zeroed where they were written), so every new coroutine must find a clean
-- stack, whatever its predecessor left there: deep recursion (more than the reused stacks
-- keep), many values, errors, a coroutine dropped while suspended, upvalues still open.
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end

local total = 0
for round = 1, 3000 do
  local g = gen(round % 7)
  for v in g do total = total + v end
end
print("generators", total)

-- Deep ones (their stacks go back to the system) between shallow ones.
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
local deep_total = 0
for round = 1, 40 do
  local co = coroutine.create(function(n) return depth(n) end)
  local ok, d = coroutine.resume(co, round % 4 == 0 and 5000 or 10)
  deep_total = deep_total + d
  collectgarbage("step", 50)
end
print("deep", deep_total)

-- Suspended ones dropped with values and open upvalues on their stacks.
local kept = {}
for round = 1, 2000 do
  local secret = { round }
  local co = coroutine.create(function(...)
    local t = { ... }
    local function peek() return secret[1] + #t end
    coroutine.yield(peek())
    error("never resumed")
  end)
  local ok, v = coroutine.resume(co, secret, "x", round, {}, function() end)
  if round % 500 == 0 then kept[#kept + 1] = v end
end
collectgarbage()
print("suspended", table.concat(kept, " "))

-- Fresh coroutines read only what they were given: nothing stale from a reused stack.
local errors = 0
for round = 1, 2000 do
  local co = coroutine.create(function(a, b, c)
    local x, y, z
    if round % 3 == 0 then error({ round }) end
    return a, b, c, x, y, z
  end)
  local r = { coroutine.resume(co, round) }
  if r[1] then
    assert(r[2] == round and r[3] == nil and r[4] == nil and r[5] == nil and r[6] == nil and r[7] == nil)
  else
    errors = errors + 1
  end
end
print("errors", errors)
