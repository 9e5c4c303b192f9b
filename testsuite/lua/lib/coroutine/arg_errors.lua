-- Argument errors of the coroutine functions called from Lua code (so the function name
-- appears): create and wrap need a Lua function, resume and status a coroutine, and
-- yield outside a coroutine.
print(pcall(function() coroutine.create(1) end))
print(pcall(function() coroutine.create() end))
print(pcall(function() coroutine.create(print) end))
print(pcall(function() coroutine.wrap("f") end))
print(pcall(function() coroutine.wrap(string.len) end))
print(pcall(function() coroutine.yield() end))
print(pcall(function() return coroutine.running(1, 2) end))
