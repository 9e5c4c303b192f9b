-- pcall returns true plus all results on success and false plus the error value on
-- failure; xpcall calls the handler with the error value and returns its (single)
-- result; nested pcalls catch errors at the innermost level.
print(pcall(function() return 1, 2, 3 end))
print(pcall(function() end))
print(select("#", pcall(function() end)))
print(pcall(function(...) return select("#", ...), ... end, "a", nil))
print(pcall(math.max, 3, 9, 4))
print(pcall(pcall))
print(pcall(42))
-- xpcall with a handler that decorates the message (no traceback).
print(xpcall(function() error("oops") end, function(m) return "handled: " .. m end))
print(xpcall(function() return "fine", 2 end, function(m) return "unused" end))
-- The handler gets non-string values untouched.
print(xpcall(function() error({code = 5}) end, function(e) return type(e) .. " " .. e.code end))
-- The handler's extra results are dropped.
print(xpcall(function() error("x", 0) end, function(m) return m, "extra" end))
-- Runtime errors reach the handler with position information.
print(xpcall(function() local t = nil return t.k end, function(m) return "H(" .. m .. ")" end))
-- A handler that itself errors.
local ok, e = xpcall(function() error("first") end, function(m) error("in handler") end)
print(ok, type(e))
-- Nested pcall: the inner catches, the outer succeeds.
print(pcall(function()
  local ok_in, err_in = pcall(error, "inner", 0)
  return "outer ok", ok_in, err_in
end))
-- Nested pcall where the inner handler re-raises.
print(pcall(function()
  local ok_in, err_in = pcall(error, "inner", 0)
  error("reraised: " .. err_in, 0)
end))
-- Deep nesting.
local function nest(n)
  if n == 0 then error("bottom", 0) end
  local ok2, e2 = pcall(nest, n - 1)
  error(e2 .. "<" .. n, 0)
end
print(pcall(nest, 5))
-- State changes before an error are kept.
local counter = 0
pcall(function() counter = counter + 1 error("stop") counter = counter + 100 end)
print(counter)
-- pcall of a non-callable value.
print(pcall(nil))
print(pcall({}))
-- Error objects through coroutines inside pcall.
local ok_w, err_w = pcall(coroutine.wrap(function() error({}) end))
print(ok_w, type(err_w))
