-- coroutine.create and coroutine.running in generated code (create allocates at a safe point).
print(coroutine.running())
local co = coroutine.create(function() local me = coroutine.running(); print(type(me), coroutine.status(me)); return me end)
local ok, me = coroutine.resume(co)
print(ok, me == co)
print(pcall(coroutine.create, print))
print(pcall(coroutine.create, 42))
print(pcall(coroutine.create))
local w = coroutine.wrap(function() return coroutine.running() end)
print(type(w()))
local many = {}
for i = 1, 2000 do many[i] = coroutine.create(function(x) coroutine.yield(x) return x * 2 end) end
collectgarbage()
local s = 0
for i = 1, 2000 do local _, v = coroutine.resume(many[i], i); s = s + v end
for i = 1, 2000, 7 do local _, v = coroutine.resume(many[i]); s = s + v end
print(s)
