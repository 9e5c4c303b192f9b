-- xpcall's message handler runs where the error was raised (the stack is intact), once;
-- pcall and coroutines hide it; errors in it become "error in error handling"; it still
-- runs after a stack overflow.
-- handler sees the full stack
local function lvl3() error("deep") end
local function lvl2() lvl3() end
local function lvl1() lvl2() end
print(xpcall(lvl1, function(m) local tb = debug.traceback(m, 2) local n = 0 for _ in tb:gmatch("\n") do n = n + 1 end return m .. " lines>=" .. tostring(n >= 4) end))
-- handler getting info about the erroring function
-- pcall inside xpcall: pcall catches, handler not called
local calls = 0
print(xpcall(function() local ok, e = pcall(error, "inner") return ok, e end, function(m) calls = calls + 1 return m end), calls)
-- handler errors
print(xpcall(function() error("e1") end, function(m) error("in handler") end))
print(xpcall(function() error("e1") end, function(m) local t = nil return t.x end))
-- handler with pcall inside
print(xpcall(function() error("e2") end, function(m) local ok, e = pcall(error, "x") return m .. "/" .. tostring(ok) end))
-- error values: tables, nil
print(xpcall(function() error({code = 7}) end, function(m) return type(m) == "table" and m.code end))
print(xpcall(function() error() end, function(m) return tostring(m) end))
-- call errors reach the handler
print(xpcall(nil, function(m) return "H:" .. m end))
-- coroutine errors do not reach an enclosing xpcall's handler
print(xpcall(function() return coroutine.resume(coroutine.create(function() error("in co") end)) end, function(m) return "H:" .. m end))
-- xpcall inside a coroutine
local co = coroutine.create(function() return xpcall(function() error("co err") end, function(m) return "CH:" .. m end) end)
print(coroutine.resume(co))
-- native errors
print(xpcall(function() return ("x"):rep(-1, 5, 6) .. nil end, function(m) return "N:" .. m end))
print(xpcall(function() string.rep() end, function(m) return "N:" .. m end))
-- nested xpcall
print(xpcall(function() return xpcall(function() error("a") end, function(m) error("b") end) end, function(m) return "outer:" .. m end))
-- stack overflow with a handler
local function rec() return 1 + rec() end
local ok, e = xpcall(rec, function(m) return "SO:" .. tostring(m):match("stack overflow") end) print(ok, e)
print(select('#', xpcall(error, function(m) return m, 2 end)))
