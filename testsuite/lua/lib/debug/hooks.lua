-- debug.sethook/gethook: the line, call, return and count events of 5.1, for each kind of
-- statement and call, per thread, with errors and hook changes inside hooks.

local function trace_lines(src, ...)
  local f = assert(loadstring(src, "=src"))
  local got = {}
  debug.sethook(function(e, l) got[#got + 1] = l end, "l")
  local ok, err = pcall(f, ...)
  debug.sethook()
  -- the last events are pcall's caller's lines: keep the chunk's only
  print(ok, err, table.concat(got, " "))
end

trace_lines([[
local a = 1
local b = 2
if a < b then
  a = b
else
  b = a
end
return a + b]])

trace_lines([[
local t = {}
for i = 1, 3 do
  t[i] = i
end
for k, v in ipairs(t) do
  t[k] = v * 2
end
local n = 0
while n < 2 do n = n + 1 end
repeat
  n = n - 1
until n == 0
return #t]])

trace_lines([[
local function sq(x)
  return x * x
end
local s = 0
for i = 1, 2 do s = s + sq(i) end
return s]])

trace_lines([[
local x = ...
local y = x and 1 or 2
local t = {1, 2}
return y, #t]], true)

trace_lines([[
local function f(...) local n = select('#', ...) return n end
local function g(...) local t = arg return t.n end
return f(1, 2), g(3)]])

trace_lines([[
error("boom")]])

-- Call and return events, with what getinfo says of the function.
local events = {}
local function record(e)
  local info = debug.getinfo(2, "nS")
  events[#events + 1] = e .. ":" .. (info.name or "?") .. ":" .. info.what
end
local function leaf(x) return x + 1 end
local function mid(x) local y = leaf(x) return y end
local function top(x) local y = mid(x) return y end
debug.sethook(record, "cr")
top(1)
local s = tostring(12)
debug.sethook()
print(table.concat(events, " "))

-- Tail calls are calls; their returns add one "tail return" per frame a tail call replaced.
events = {}
local function t3() return 3 end
local function t2() return t3() end
local function t1() return t2() end
debug.sethook(function(e) events[#events + 1] = e end, "cr")
t1()
debug.sethook()
print(table.concat(events, " "))

-- gethook: function, mask, count; a count hook fires; sethook() clears.
local fired = 0
local function counter() fired = fired + 1 end
debug.sethook(counter, "crl", 7)
local h, m, c = debug.gethook()
debug.sethook()
print(h == counter, m, c)
debug.sethook(counter, "", 3)
for i = 1, 100 do end
debug.sethook()
print(fired > 20, fired < 100)
fired = 0
debug.sethook(counter, "", 100000)
for i = 1, 100 do end
debug.sethook()
print(fired)
print(debug.gethook())

-- Inside the hook: locals and line of the traced function, no events for the hook itself.
local seen = {}
local function probe()
  local alpha = 10
  local beta = alpha * 2
  return beta
end
debug.sethook(function(e, l)
  if debug.getinfo(2, "f").func ~= probe or debug.getinfo(2, "l").currentline ~= l then return end
  local names = {}
  local i = 1
  while true do
    local n, v = debug.getlocal(2, i)
    if not n then break end
    if n:sub(1, 1) ~= "(" then names[#names + 1] = n .. "=" .. tostring(v) end
    i = i + 1
  end
  seen[#seen + 1] = l .. "[" .. table.concat(names, ",") .. "]"
end, "l")
probe()
debug.sethook()
print(#seen > 0, seen[1], seen[#seen])

-- An error in a hook propagates from the instruction it traced; the hook stays.
local n = 0
local function failing(e, l)
  n = n + 1
  if n == 3 then error("hook failed at " .. e .. " " .. l, 0) end
end
local ok, err = pcall(function()
  debug.sethook(failing, "l")
  local a = 1
  local b = 2
  local c = 3
  return a + b + c
end)
print(ok, err, debug.gethook() == failing)
debug.sethook()

-- A hook may replace or remove itself.
local log = {}
debug.sethook(function(e)
  log[#log + 1] = e
  debug.sethook(function(e2) log[#log + 1] = "second:" .. e2; debug.sethook() end, "c")
end, "c")
math.abs(1)
math.abs(2)
print(table.concat(log, " "), debug.gethook())

-- Hooks belong to threads: the main thread's hook does not see a coroutine, and a
-- coroutine's hook does not see the main thread.
local co_lines = {}
local co = coroutine.create(function(a)
  local b = a + 1
  coroutine.yield(b)
  local c = b + 1
  return c
end)
debug.sethook(co, function(e, l) co_lines[#co_lines + 1] = e .. l end, "l")
print(debug.gethook(co) ~= nil, debug.gethook())
print(coroutine.resume(co, 1))
print(coroutine.resume(co))
print(table.concat(co_lines, " "))
local main_events = 0
debug.sethook(function() main_events = main_events + 1 end, "l")
local co2 = coroutine.wrap(function() local x = 1; local y = 2; return x + y end)
local r = co2()
debug.sethook()
print(r, main_events > 0, main_events < 6)

-- A hook between a call with many results and the instruction that takes them leaves them
-- alone.
local function many() local t = {} for i = 1, 300 do t[i] = i end return unpack(t) end
local function sum(...) local s = 0 for i = 1, select('#', ...) do s = s + select(i, ...) end return s end
debug.sethook(function(e, l) local a, b, c = {}, {}, {} end, "crl", 1)
local total = sum(many())
local packed = {many()}
local function pass(...) return ... end
local back = select('#', pass(many()))
debug.sethook()
print(total, #packed, back)
