-- Errors and coroutines: an error inside a coroutine is returned by resume as
-- (false, message) and kills it; resuming a dead coroutine fails; yield outside a
-- coroutine fails; pcall inside a coroutine catches errors there and the coroutine
-- keeps running.
local co = coroutine.create(function(x)
  coroutine.yield(x)
  error("failed at step 2")
end)
print(coroutine.resume(co, 1))
print(coroutine.resume(co))
print(coroutine.status(co))
print(coroutine.resume(co))
-- Error values of any type.
local function run(f) return coroutine.resume(coroutine.create(f)) end
print(run(function() error("msg", 0) end))
print(run(function() error(42) end))
print(run(function() error() end))
local ok, e = run(function() error({reason = "table"}) end)
print(ok, type(e), e.reason)
print(run(function() error("lvl2", 2) end))
-- Runtime errors name the variable.
print(run(function() local t = nil return t.x end))
print(run(function() return undefined_global() end))
-- Yield from the main thread.
print(pcall(coroutine.yield, 1))
print(pcall(function() coroutine.yield() end))
-- pcall inside a coroutine.
local co2 = coroutine.create(function()
  local ok1, err1 = pcall(error, "caught inside")
  coroutine.yield(ok1, err1)
  local ok2, err2 = pcall(function() local n = nil return n + 1 end)
  return ok2, err2
end)
print(coroutine.resume(co2))
print(coroutine.resume(co2))
-- A yield inside pcall inside a coroutine (5.1 cannot yield across pcall).
local co3 = coroutine.create(function()
  return pcall(coroutine.yield, "from pcall")
end)
print(coroutine.resume(co3))
-- An error in a nested coroutine is returned to the outer one, not propagated.
local outer = coroutine.create(function()
  local inner = coroutine.create(function() error("inner boom", 0) end)
  local r1, r2 = coroutine.resume(inner)
  coroutine.yield(r1, r2, coroutine.status(inner))
  return "outer ok"
end)
print(coroutine.resume(outer))
print(coroutine.resume(outer))
-- resume requires a coroutine argument.
print(pcall(coroutine.resume, coroutine.create(function() end)))
