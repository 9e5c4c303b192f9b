-- __eq on userdata: two proxies sharing a metatable compare with __eq; a proxy with a
-- different metatable does not; a userdata never equals a table.
local u1 = newproxy(true)
local u2 = newproxy(u1)
getmetatable(u1).__eq = function() return true end
print(u1 == u2, u1 ~= u2, u1 == newproxy(true))
local t = setmetatable({}, getmetatable(u1))
print(u1 == t, t == u1)
