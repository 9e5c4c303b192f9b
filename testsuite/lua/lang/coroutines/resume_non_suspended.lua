-- Resuming a coroutine that is not suspended: the message names its state (running,
-- normal or dead).
local self_resume
self_resume = coroutine.create(function()
  return coroutine.resume(self_resume)
end)
print(coroutine.resume(self_resume))
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function() return coroutine.resume(outer) end)
  return coroutine.resume(inner)
end)
print(coroutine.resume(outer))
print(coroutine.resume(outer))
