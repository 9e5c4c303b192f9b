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

-- 12. functions made by wrap: values, errors with the caller's position, non-string errors,
-- generators inside generators, and a wrap called after its coroutine died
local gen = coroutine.wrap(function(a, b)
  local c = coroutine.yield(a + b, "first")
  local d, e = coroutine.yield(c)
  return d .. e
end)
print(gen(1, 2))
print(gen("again"))
print(gen("x", "y"))
print(pcall(gen))
local failing = coroutine.wrap(function() coroutine.yield(1) error("wrapped failure") end)
print(failing())
print(pcall(failing))
local tabled = coroutine.wrap(function() error({ "tbl" }) end)
local ok_t, e_t = pcall(tabled)
print(ok_t, type(e_t), e_t[1])
local leveled = coroutine.wrap(function() error("no position", 0) end)
print(pcall(leveled))
local function range(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
local function squares(src) return coroutine.wrap(function() for v in src do coroutine.yield(v * v) end end) end
local total = 0
for v in squares(range(10)) do total = total + v end
print("squares", total)
print(pcall(coroutine.wrap, 42))
local w = coroutine.wrap(function() print(debug.traceback("in wrap")) return coroutine.status(coroutine.running()) end)
print(w())

-- 13. a hook turned on inside a wrapped generator (5.1's db.lua does this)
local hooked = coroutine.wrap(function(i)
  debug.sethook(function() end, "l")
  for j = 1, 3 do coroutine.yield(i + j) end
  debug.sethook()
  return "hooked done"
end)
print(hooked(10), hooked(), hooked(), hooked())

-- 14. status of every kind of value
print(coroutine.status(coroutine.create(function() end)), pcall(coroutine.status, {}), pcall(coroutine.status))
