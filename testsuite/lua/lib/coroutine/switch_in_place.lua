-- coroutine.resume and coroutine.yield switch stacks in generated code; the debug hooks run
-- their native twins. Each mix of the two must hand values, errors and frames over the same.

-- 1. a hook set inside a coroutine resumed in place: its yield is then the native one
local co = coroutine.create(function(a)
  local n = 0
  debug.sethook(function() n = n + 1 end, "l")
  local b = coroutine.yield(a + 1)
  debug.sethook()
  local c = coroutine.yield(b * 2, n > 0)
  return c, "end"
end)
print(coroutine.resume(co, 1))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, "last"))
print(coroutine.status(co), coroutine.resume(co))

-- 2. resumed natively (a hook is on), then in place after the hook is gone
local trace = {}
debug.sethook(function(e) trace[#trace + 1] = e end, "cr")
local co2 = coroutine.create(function(x)
  local y = coroutine.yield(x)
  local z = coroutine.yield(y)
  return x + y + z
end)
local ok, v = coroutine.resume(co2, 1)
debug.sethook()
print(ok, v, #trace > 0)
print(coroutine.resume(co2, 2))
print(coroutine.resume(co2, 3))
print(coroutine.status(co2))

-- 3. an error in a coroutine started natively and resumed in place
debug.sethook(function() end, "c")
local co3 = coroutine.create(function() coroutine.yield(1) error("late failure") end)
print(coroutine.resume(co3))
debug.sethook()
print(coroutine.resume(co3))
print(coroutine.status(co3))

-- 4. nested coroutines: values and errors cross two switches
local inner = coroutine.create(function(a)
  local b = coroutine.yield(a, "inner")
  error({ code = b })
end)
local outer = coroutine.create(function()
  local ok1, x, tag = coroutine.resume(inner, 5)
  local got = coroutine.yield(x, tag, ok1)
  local ok2, e = coroutine.resume(inner, got)
  return ok2, type(e), e.code, coroutine.status(inner)
end)
print(coroutine.resume(outer))
print(coroutine.resume(outer, 42))
print(coroutine.status(outer), coroutine.status(inner))

-- 5. many values each way
local many = {}
for i = 1, 3000 do many[i] = i end
local big = coroutine.create(function(...)
  local n = select('#', ...)
  local back = { coroutine.yield(n, select(n, ...)) }
  return #back, back[1], back[#back]
end)
print(coroutine.resume(big, unpack(many)))
print(coroutine.resume(big, unpack(many, 1, 2500)))
local wide = coroutine.create(function() coroutine.yield(unpack(many)) end)
local r = { coroutine.resume(wide) }
print(#r, r[1], r[2], r[#r])

-- 6. yield across pcall, and from the main thread
local across = coroutine.create(function() return pcall(coroutine.yield, 1) end)
print(coroutine.resume(across))
print(pcall(coroutine.yield))
print(select('#', coroutine.resume(coroutine.create(function() end))))

-- 7. resume of itself, of a normal coroutine, of a dead one, of a non-coroutine
local selfco
selfco = coroutine.create(function()
  print("self", coroutine.resume(selfco))
  local parent = coroutine.running()
  local child = coroutine.create(function() return coroutine.resume(parent) end)
  print("normal", coroutine.resume(child))
end)
coroutine.resume(selfco)
print(coroutine.resume(selfco))
print(pcall(coroutine.resume, 42))
print(pcall(coroutine.resume))

-- 8. levels and tracebacks stop at the coroutine's first frame
local lv = coroutine.create(function()
  local function f() return debug.getinfo(3) == nil, debug.getinfo(2, "S").what end
  print("levels", f())
  print(debug.traceback("inside"))
  coroutine.yield()
  error("dies")
end)
coroutine.resume(lv)
print(debug.traceback(lv))
print(coroutine.resume(lv))
print(debug.traceback(lv))

-- 9. deep nesting of resumes: 5.1's C stack limit
local depth = 0
local function nest()
  depth = depth + 1
  local c = coroutine.create(nest)
  local ok, err = coroutine.resume(c)
  if not ok then error(err, 0) end
end
print(pcall(nest))
print(depth > 100)

-- 10. upvalues of a coroutine that died of an error stay readable
local getter
local up = coroutine.create(function()
  local secret = "kept"
  getter = function() return secret end
  coroutine.yield()
  error("x")
end)
coroutine.resume(up)
coroutine.resume(up)
print(getter())

-- 11. tail calls at a coroutine's bottom frame
local tc = coroutine.create(function(n)
  local function loop(k) if k == 0 then return coroutine.yield("bottom") end return loop(k - 1) end
  return loop(n)
end)
print(coroutine.resume(tc, 10))
print(coroutine.resume(tc, "back"))
