-- debug.traceback of a suspended coroutine: from its yield, with a message and a level.
local co = coroutine.create(function() local function inner() coroutine.yield() end inner() end)
coroutine.resume(co)
print(debug.traceback(co))
print(debug.traceback(co, "m", 1))
