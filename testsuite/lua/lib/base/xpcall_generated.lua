-- xpcall runs in generated code: its message handler runs where the error is raised (once,
-- across native frames too), with 5.1's extra depth so a "C stack overflow" reaches it.
local function h(e) return "handled: " .. tostring(e) end
print(xpcall(function() return 1, 2, 3 end, h))
print(xpcall(function() error("boom") end, h))
print(xpcall(function() error({}) end, function(e) return type(e) end))
print(xpcall(function() local x = nil; return x.y end, h))
print(xpcall(function() error("in") end, function(e) error("again") end))
print(xpcall(function() error("in") end, 42))
print(xpcall(nil, h))
print(xpcall(42, h))
print(pcall(xpcall, function() end))
print(xpcall(function() return xpcall(function() error("inner") end, function(e) return "inner handler: " .. e end) end, h))
print(xpcall(function() local ok, e = pcall(error, "caught by pcall"); error("after " .. tostring(e)) end, h))
-- the handler sees the stack where the error was raised
print(xpcall(function() local function deep() error("d") end deep() end, function(e) return debug.traceback(e, 1) end))
-- an error crossing a native frame (table.sort's comparator)
print(xpcall(function() table.sort({3, 2, 1}, function(a, b) error("cmp") end) end, h))
-- stack overflow inside
local function rec() return 1 + rec() end
local ok, e = xpcall(rec, function(m) return "overflow: " .. tostring(m):match("stack overflow") end)
print(ok, e)
-- handler called once even across native boundaries
local n = 0
print(xpcall(function() for k in pairs(setmetatable({}, {__index = function() error("idx") end})) do end; local t = setmetatable({}, {__index = function() error("idx") end}); return t.x end, function(e) n = n + 1; return e end), n)
-- error in a coroutine inside xpcall is the coroutine's
print(xpcall(function() return coroutine.resume(coroutine.create(function() error("co") end)) end, h))
-- yield across xpcall
local co = coroutine.create(function() return xpcall(function() coroutine.yield(1) end, h) end)
print(coroutine.resume(co))
-- deep nesting
local depth = 0
local function nest() depth = depth + 1; return xpcall(nest, function(e) return e end) end
print(nest()); print(depth > 150)
print(select('#', xpcall(function() end, h)))
