-- coroutine.status in every state: suspended (before the first resume and after a
-- yield), running (inside itself), normal (when it resumed another coroutine), and
-- dead (after returning or erroring).
local main_status = {}
local co1, co2
co1 = coroutine.create(function()
  print("inside co1:", coroutine.status(co1))
  coroutine.resume(co2)
  print("co1 after co2 yielded:", coroutine.status(co1), coroutine.status(co2))
  coroutine.yield()
  return "end"
end)
co2 = coroutine.create(function()
  print("inside co2:", coroutine.status(co2), "co1 is", coroutine.status(co1))
  coroutine.yield()
end)
print("before:", coroutine.status(co1), coroutine.status(co2))
coroutine.resume(co1)
print("after first resume:", coroutine.status(co1), coroutine.status(co2))
print(coroutine.resume(co1))
print("finished:", coroutine.status(co1))
coroutine.resume(co2)
print("co2:", coroutine.status(co2))
-- Dead after an error.
local bad = coroutine.create(function() error("boom") end)
print(coroutine.resume(bad))
print(coroutine.status(bad))
-- Dead immediately if the body returns without yielding.
local quick = coroutine.create(function() end)
print(coroutine.status(quick), coroutine.resume(quick), coroutine.status(quick))
-- A coroutine suspended inside a nested call.
local nested = coroutine.create(function()
  local function deep() coroutine.yield("from deep") end
  deep()
end)
print(coroutine.resume(nested))
print(coroutine.status(nested))
print(coroutine.resume(nested))
print(coroutine.status(nested))
-- type of a coroutine.
print(type(co1))
