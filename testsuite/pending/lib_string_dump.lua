-- PENDING: ljr differs from lua5.1.
-- string.dump of a Lua function raises 'unable to dump given function' (not implemented).
-- Expected (lua5.1):
--   string	true
--   function	5
--   3628800
--   3	a	nil	c
-- Actual (ljr):
--   [exit 1] stderr: ljr: dump.lua:4: unable to dump given function
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
