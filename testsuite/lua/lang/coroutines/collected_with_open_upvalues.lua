-- A suspended (or failed) coroutine that is collected while a closure still shares one of its
-- locals: the closure keeps the value (5.1 closes the upvalues when it frees the thread), and
-- nothing else keeps the coroutine alive (a call's header slot left over from a native
-- function's result was once scanned as a root).
local C = setmetatable({}, {__mode = "kv"})
local x = coroutine.wrap(function()
  local a = 10
  local function f() a = a + 10; return a end
  while true do
    a = a + 1
    coroutine.yield(f)
  end
end)
C[1] = x
local f = x()
print(f(), x()(), x() == f)
x = nil
collectgarbage()
print(C[1])
print(f(), f())
-- The same after an error ends the coroutine.
local co = coroutine.create(function()
  local a = 10
  _G.g = function() a = a + 1; return a end
  error("x")
end)
print(coroutine.resume(co))
print(coroutine.resume(co, 1, 1, 1, 1, 1, 1, 1))
C[2] = co
co = nil
collectgarbage()
print(C[2], g(), g())
-- A result returned by a native function is left in a slot that later calls use as a
-- header slot: it must not keep the value alive.
C[3] = coroutine.create(function() end)
local kind = type(C[3])
collectgarbage()
print(kind, C[3])
