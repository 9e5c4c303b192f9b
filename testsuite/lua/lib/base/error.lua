-- error: levels 0, 1 (default) and 2 decide which position is prefixed to string
-- messages; non-string values (tables, nil, numbers, booleans) are raised unchanged.
local function lvl(level) error("msg", level) end
print(pcall(lvl, 0))
print(pcall(lvl, 1))
print(pcall(lvl))
local function caller() lvl(2) end
print(pcall(caller))
local function deep3() error("three", 3) end
local function deep2() deep3() end
local function deep1() deep2() end
print(pcall(deep1))
print(pcall(error))
print(pcall(error, nil))
print(pcall(error, 42))
local ok, e = pcall(error, 42)
print(type(e))
ok, e = pcall(function() error(42) end)
print(ok, e, type(e))
ok, e = pcall(function() error(true) end)
print(ok, e)
local t = {}
ok, e = pcall(function() error(t) end)
print(ok, e == t)
ok, e = pcall(function() error(setmetatable({}, {__tostring = function() return "custom" end})) end)
print(ok, tostring(e))
print(pcall(function() error("with level 1", 1) end))
print(pcall(function() error("no position", 0) end))
print(pcall(function() error() end))
-- error called through pcall directly: level 1 is pcall itself, so no position.
print(pcall(error, "direct"))
print(pcall(error, "direct2", 2))
-- Nested pcall: the inner error is caught first and the outer call sees success.
print(pcall(function()
  local a, b = pcall(error, "inner")
  return a, b, "after"
end))
-- Rethrowing keeps the message unchanged.
print(pcall(function()
  local ok2, e2 = pcall(error, "first")
  error(e2, 0)
end))
