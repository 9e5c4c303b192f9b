-- coroutine.running returns nil in the main thread (Lua 5.1) and the running
-- coroutine inside one, also inside nested functions and nested coroutines.
print(coroutine.running())
print(select("#", coroutine.running()))
local co
co = coroutine.create(function()
  local r = coroutine.running()
  print("inside", r == co, type(r))
  local function helper() return coroutine.running() end
  print("helper", helper() == co)
  local inner
  inner = coroutine.create(function()
    print("inner", coroutine.running() == inner, coroutine.running() ~= co)
  end)
  coroutine.resume(inner)
  print("back", coroutine.running() == co)
end)
coroutine.resume(co)
print(coroutine.running())
-- Inside a wrap.
local w = coroutine.wrap(function() return type(coroutine.running()) end)
print(w())
