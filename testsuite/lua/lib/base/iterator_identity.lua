-- Details of the iterator functions in 5.1: the ipairs iterator returns no values at all
-- (not nil) at the end, and pairs returns its own copy of next (a different closure from the
-- global next), while every ipairs call returns the same iterator.
local t = {10, 20, 30}
local f = ipairs(t)
print(select("#", f(t, 3)))
print(f(t, 3))
print(select("#", f(t, 2)))
local pf = pairs(t)
print(pf == next, pf == pairs({}))
print(ipairs(t) == ipairs({}))
