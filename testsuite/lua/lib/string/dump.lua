-- string.dump: returns a string for a Lua function, which loadstring turns back into a
-- working function.
local function add(a, b) return a + b end
local d = string.dump(add)
print(type(d), #d > 0)
local f = loadstring(d)
print(type(f), f(2, 3))
local function fact(n) if n <= 1 then return 1 end local r = 1 for i = 2, n do r = r * i end return r end
print(loadstring(string.dump(fact))(10))
local g = loadstring(string.dump(function(...) return select("#", ...), ... end))
print(g("a", nil, "c"))
