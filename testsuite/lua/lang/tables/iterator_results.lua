-- What pairs and ipairs return, and what their iterators return: pairs gives the base
-- library's own copy of next (not equal to the global `next`), the table and nil; the
-- ipairs iterator returns no values at all (not a nil) at the end of the sequence, and
-- next returns a single nil at the end.
local t = {10, 20, x = 3}
local f, s, c = pairs(t)
print(f == next, s == t, c, select("#", pairs(t)))
print(f(t, nil) ~= nil, f == select(1, pairs({})))
local g, s2, c2 = ipairs(t)
print(g == select(1, ipairs({})), s2 == t, c2, select("#", ipairs(t)))
print(g(t, 0))
print(g(t, 1))
print(select("#", g(t, 1)), select("#", g(t, 2)))
print(g(t, 2))
print((g(t, 2)))
local last = {g(t, 2)}
print(#last, last[1])
-- next returns one nil at the end.
local only = {k = "v"}
print(select("#", next(only, "k")), next(only, "k"))
print(select("#", next({})))
-- Iterator functions called with extra arguments.
print(g(t, 0, "extra"))
print(next(only, nil, "extra"))
