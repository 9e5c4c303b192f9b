-- In a multiple assignment all subexpressions of the targets are evaluated before any
-- assignment (manual 2.4.3), also when an indexed target comes before the local it
-- uses: in `t[k], k = v, 2` the key is the old k.
local t = {}
local k = 1
t[k], k = "first", 2
print(t[1], t[2], k)
local u = {}
local i = 1
u[i], i = "A", i + 1
print(u[1], u[2], i)
local a, b = {}, {}
local cur = a
cur.f, cur = "x", b
print(a.f, b.f, (cur == b) and "y" or "n")
local arr = {}
local j = 1
arr[j], j = j, j + 1
print(arr[1], arr[2], j)
