-- error() with values of every type: strings get position information at level 1,
-- other values are passed through unchanged; pcall returns false plus the value.
print(pcall(error, "plain"))
print(pcall(function() error("with position") end))
print(pcall(function() error("no position", 0) end))
print(pcall(function() error(42) end))
print(pcall(function() error(4.5, 0) end))
print(pcall(function() error(nil) end))
print(pcall(function() error() end))
print(select("#", pcall(function() error() end)))
print(pcall(function() error(true) end))
print(pcall(function() error(false) end))
local t = {msg = "table error"}
local ok, e = pcall(function() error(t) end)
print(ok, e == t, e.msg)
local f = function() end
ok, e = pcall(function() error(f) end)
print(ok, e == f)
-- A table with __tostring stays a table.
local obj = setmetatable({}, {__tostring = function() return "custom" end})
ok, e = pcall(error, obj)
print(ok, e == obj, tostring(e))
-- Numeric strings are strings and get a position.
print(pcall(function() error("123") end))
-- Errors with embedded newlines.
print(pcall(function() error("line1\nline2") end))
-- Rethrowing a caught error keeps the value (and adds no second position at level 0).
local ok1, e1 = pcall(function() error("original") end)
local ok2, e2 = pcall(function() error(e1, 0) end)
print(ok2, e2 == e1, e2)
-- Rethrowing at level 1 adds another position.
local ok3, e3 = pcall(function() error(e1) end)
print(ok3, e3)
-- error's level argument must be a number.
print(pcall(error, "x", "y"))
