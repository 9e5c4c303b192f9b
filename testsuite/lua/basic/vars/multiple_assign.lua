-- Multiple assignment: all expressions are evaluated before any assignment, extra values
-- are dropped, missing values become nil.
local a, b = 1, 2
a, b = b, a
print("swap", a, b)
local x, y, z = 1, 2, 3
x, y, z = z, x, y
print("rotate", x, y, z)
x, y = 10
print("fewer values", x, y)
x, y = 1, 2, 3
print("more values", x, y)
x, y, z = nil
print("all nil", x, y, z)
-- Right-hand sides see the old values.
local i = 1
local j = 5
i, j = i + j, i - j
print("old values", i, j)
-- Globals and locals mixed.
local l = "L"
g1, l, g2 = "G1", "L2", "G2"
print("mixed", g1, l, g2)
-- Function calls on the right: each call contributes one value (or nil for none).
function one() return 1 end
function none() end
local p, q, r = one(), none(), one()
print("calls", p, q, r)
local s, t = one()
print("last call fills one", s, t)
-- Fibonacci by repeated parallel assignment.
local f0, f1 = 0, 1
for k = 1, 30 do f0, f1 = f1, f0 + f1 end
print("fib(30)", f0)
-- Expressions are evaluated left to right, calls included.
order = ""
function note(v) order = order .. v return v end
local m, n, o = note("a"), note("b"), note("c")
print(m, n, o, order)
