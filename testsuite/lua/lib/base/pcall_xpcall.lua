-- pcall and xpcall: all results on success, false plus the error value on failure, xpcall
-- handler receiving the error and replacing it with its first result, errors of non-callable
-- values, and the argument errors.
print(pcall(function(a, b, c) return a, b, c end, 1, nil, 3))
print(select("#", pcall(function() end)))
print(pcall(error, "e"))
print(pcall(pcall))
print(pcall(pcall, error, "nested"))
print(pcall(nil))
print(pcall(42))
print(pcall({}))
print(pcall(setmetatable({}, {__call = function(self, a) return "called", a end}), "arg"))
print(pcall(string.rep, "ab", 3))
print(pcall(string.rep))
print(xpcall(function() return 1, 2, 3 end, print))
print(xpcall(function() error("oops") end, function(m) return "handled: " .. m end))
print(xpcall(function() error({1, 2}) end, function(m) return type(m), #m end))
print(xpcall(function() error() end, function(m) return "got " .. tostring(m) end))
print(xpcall(function() local x = nil; return x.f end, function(m) return (string.gsub(m, "^.-:%d+: ", "")) end))
print(xpcall(function() error("x") end, function() end))
print(xpcall(function() error("x") end, function() return nil, "second" end))
-- The handler runs before the stack unwinds, so it sees the failing function's level.
print(xpcall(function() error("deep") end, function(m) return debug.getinfo(2, "S").what end))
-- In 5.1 xpcall passes no extra arguments to the function.
print(xpcall(function(...) return select("#", ...) end, print, 1, 2))
-- Errors inside a handler-protected call leave the caller able to continue.
local count = 0
for i = 1, 5 do
  local ok = pcall(function() if i % 2 == 0 then error("even") end count = count + 1 end)
end
print("count", count)
-- Error objects pass through unchanged.
local obj = {}
local ok, e = pcall(function() error(obj) end)
print(ok, e == obj)
ok, e = xpcall(function() error(obj) end, function(m) return m end)
print(ok, e == obj)
