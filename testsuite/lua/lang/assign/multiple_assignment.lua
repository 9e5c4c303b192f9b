-- Multiple assignment: extra values are dropped, missing ones are nil, swaps and
-- rotations use the old values (all expressions are evaluated before assigning), and
-- only the last expression can produce several values.
local a, b, c = 1, 2
print(a, b, c)
local d, e = 1, 2, 3
print(d, e)
a, b = b, a
print(a, b)
a, b, c = c, a, b
print(a, b, c)
local x, y, z = 1, 2, 3
x, y, z = z, x, y
print(x, y, z)
-- Swapping table fields and array elements.
local t = {1, 2, 3}
t[1], t[3] = t[3], t[1]
print(t[1], t[2], t[3])
local s = {p = "P", q = "Q"}
s.p, s.q = s.q, s.p
print(s.p, s.q)
-- Values are evaluated before any assignment: i is the old value in t[i].
local i = 1
local arr = {}
i, arr[i] = i + 1, "set"
print(i, arr[1], arr[2])
-- Functions returning several values.
local function two() return "r1", "r2" end
local function none() end
local m1, m2, m3 = two()
print(m1, m2, m3)
m1, m2, m3 = two(), "x"
print(m1, m2, m3)
m1, m2, m3 = "x", two()
print(m1, m2, m3)
m1, m2, m3 = two(), two()
print(m1, m2, m3)
m1, m2 = none()
print(m1, m2)
m1, m2, m3 = 0, none()
print(m1, m2, m3)
m1, m2, m3 = none(), 5
print(m1, m2, m3)
-- Parentheses truncate to one value.
m1, m2 = (two())
print(m1, m2)
-- Globals and locals mixed.
g1, g2 = 10, 20
local l1
l1, g1 = g1, l1
print(l1, g1, g2)
-- Many targets.
local v1, v2, v3, v4, v5, v6, v7, v8 = 1, 2, 3, 4, 5, 6, 7, 8
v1, v2, v3, v4, v5, v6, v7, v8 = v8, v7, v6, v5, v4, v3, v2, v1
print(v1, v2, v3, v4, v5, v6, v7, v8)
-- Local declarations see the previous binding of the name on the right side.
local n = 5
local n, n2 = n + 1, n * 2
print(n, n2)
