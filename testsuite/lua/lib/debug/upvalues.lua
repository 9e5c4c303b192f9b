-- debug.getupvalue and debug.setupvalue: names and values by index, indices out of range
-- (nothing returned), setting an upvalue shared by two closures, C closures (nothing),
-- and the argument errors.
local x, y = 10, "why"
local function f() return x, y end
local function g() x = x + 1 return x end
print(debug.getupvalue(f, 1))
print(debug.getupvalue(f, 2))
print(debug.getupvalue(f, 3))
print(select("#", debug.getupvalue(f, 0)), select("#", debug.getupvalue(f, 3)))
print(debug.setupvalue(f, 1, 100))
print(f(), x)
print(g(), debug.getupvalue(f, 1))
print(debug.setupvalue(f, 2, nil), f())
print(debug.setupvalue(f, 5, 1))
local function noups() return 1 end
print(debug.getupvalue(noups, 1))
-- Upvalues of nested closures count in order of first use.
local p, q, r = "P", "Q", "R"
local function uses() return r, p end
print(debug.getupvalue(uses, 1), debug.getupvalue(uses, 2))
-- C closures' upvalues cannot be reached from Lua in 5.1: nothing is returned.
local it = string.gmatch("hello", "l")
print(debug.getupvalue(it, 1))
print(debug.getupvalue(it, 2))
print(select("#", debug.getupvalue(print, 1)))
print(pcall(debug.getupvalue, 1, 1))
print(pcall(debug.getupvalue, f))
print(pcall(debug.setupvalue, f, 1))
print(pcall(debug.setupvalue, "x", 1, 1))
