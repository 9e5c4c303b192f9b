-- assert's message in 5.1 goes through luaL_error: it must be a string or a number (other
-- values are a bad argument #2), numbers become strings, and when assert is called from Lua
-- code the position of the call is prefixed.
print(pcall(assert, nil, 42))
local ok, e = pcall(assert, nil, 42)
print(type(e))
local t = {}
ok, e = pcall(assert, false, t)
print(ok, e == t, type(e) == "table" or e)
print(pcall(assert, false, false))
print(pcall(function() assert(1 == 2, "not equal") end))
print(pcall(function() local x assert(x, "x is " .. tostring(x)) end))
local function maybe(v) if v then return v, "extra" end return nil, "failed: " .. tostring(v) end
print(pcall(function() return assert(maybe(false)) end))
