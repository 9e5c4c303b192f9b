-- table.remove with a position outside 1..#t returns no values in 5.1 (not nil) and leaves
-- the table unchanged.
local t = {1, 2, 3}
print(select("#", table.remove(t, 10)))
print(table.remove(t, 10))
print(select("#", table.remove(t, 0)))
print(select("#", table.remove(t, -1)))
print(#t, t[1], t[2], t[3])
local u = {1, 2, 3}
table.remove(u, 10) print(#u, u[1], u[2], u[3])
u = {1, 2, 3}
table.remove(u, 0) print(#u, u[1], u[2], u[3])
u = {1, 2, 3}
table.remove(u, -1) print(#u, u[1], u[2], u[3])
