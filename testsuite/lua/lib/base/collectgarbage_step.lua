-- collectgarbage("step", size) with 5.1's accounting: each call does (size + 1) collector
-- steps of work sized by setstepmul and answers whether one of them finished the cycle; when
-- it does, the garbage made since the last collection is gone. The counts differ between
-- implementations (heaps differ); their relations do not.
local function dosteps(size)
  -- Stopped first: a mode that steps the collector at every call (--gc-verify) would start a
  -- cycle at the call that stops it.
  collectgarbage("stop")
  collectgarbage()
  local a = {}
  for i = 1, 100 do a[i] = {{}}; local b = {} end
  local before = collectgarbage("count")
  local n = 0
  repeat n = n + 1 until collectgarbage("step", size)
  assert(collectgarbage("count") < before, "a finished cycle frees the garbage")
  return n
end
local s0, s2, s6, big = dosteps(0), dosteps(2), dosteps(6), dosteps(10000)
print(s0 > 10, s6 < s2, s2 < s0, big)
-- A larger step multiplier does more work per step.
local old = collectgarbage("setstepmul", 800)
print(old, dosteps(0) < s0)
collectgarbage("setstepmul", old)
-- Steps work while the collector is stopped, and a huge or negative size finishes the cycle.
collectgarbage("stop")
print(collectgarbage("step", 1e6), collectgarbage("step", -1))
collectgarbage("restart")
-- Finalizers run when a step finishes the cycle.
local log = {}
do
  local u = newproxy(true)
  getmetatable(u).__gc = function() log[#log + 1] = "finalized" end
end
repeat until collectgarbage("step", 0)
collectgarbage("step", 1e6)
print(log[1])
-- A weak table is cleared by the cycle a step finishes.
local weak = setmetatable({}, {__mode = "k"})
weak[{}] = true
repeat until collectgarbage("step", 4)
print(next(weak))
