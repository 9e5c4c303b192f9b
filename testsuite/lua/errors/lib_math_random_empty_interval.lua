-- math.random with an empty interval raises "bad argument #2 to 'random' (interval is
-- empty)" at the call.
math.randomseed(1)
local function pick(lo, hi) return math.random(lo, hi) end
print(pick(3, 3))
print(pick(5, 4))
