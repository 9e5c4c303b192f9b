-- coroutine.create/resume/yield: values passed in both directions (first resume gives the
-- function's arguments, later resumes become yield's results), the final return values,
-- resuming a dead coroutine, errors inside the coroutine (returned by resume, which leaves
-- it dead), and yields from nested Lua calls.
local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c, d = coroutine.yield(a + b)
  print("got", c, d)
  local e = coroutine.yield(c * d, "two", nil)
  print("got", e)
  return "done", e
end)
print(type(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.resume(co, 3, 4))
print(coroutine.resume(co, "last"))
print(coroutine.resume(co))
print(coroutine.resume(co, "again"))
local function inner(x) return coroutine.yield(x * 10) + 1 end
local nested = coroutine.create(function(x)
  local y = inner(x)
  local z = inner(y)
  return z
end)
print(coroutine.resume(nested, 1))
print(coroutine.resume(nested, 5))
print(coroutine.resume(nested, 7))
print(coroutine.status(nested))
local bad = coroutine.create(function() local t = nil; return t.x end)
print(coroutine.resume(bad))
print(coroutine.status(bad), coroutine.resume(bad))
local errobj = {}
local thrower = coroutine.create(function() error(errobj) end)
local ok, e = coroutine.resume(thrower)
print(ok, e == errobj)
local msg = coroutine.create(function() coroutine.yield() error("after yield") end)
print(coroutine.resume(msg))
print(coroutine.resume(msg))
-- Yield with no values and resume with no values.
local empty = coroutine.create(function(...) print("args", select("#", ...)) print("yield got", select("#", coroutine.yield())) end)
print(select("#", coroutine.resume(empty)))
print(select("#", coroutine.resume(empty)))
-- Many yields in a loop.
local counter = coroutine.create(function() for i = 1, 5 do coroutine.yield(i) end return "end" end)
local got = {}
while true do
  local ok2, v = coroutine.resume(counter)
  got[#got + 1] = tostring(v)
  if coroutine.status(counter) == "dead" then break end
end
print(table.concat(got, " "))
-- yield outside any coroutine.
print(pcall(coroutine.yield, 1))
-- pcall inside a coroutine catches errors there; yields across pcall fail in 5.1.
local guarded = coroutine.create(function()
  local ok3, e3 = pcall(error, "caught inside")
  coroutine.yield(ok3, e3)
  return "finished"
end)
print(coroutine.resume(guarded))
print(coroutine.resume(guarded))
local across = coroutine.create(function() return pcall(coroutine.yield, "from pcall") end)
print(coroutine.resume(across))
