-- pcall is written in the semantics: its call is made in place and an error thrown inside
-- unwinds to its frame in generated code. Every way into and out of it: results of every
-- count, errors of every kind (runtime, error() with values and levels, argument errors, a
-- callee that is not a function, __call, stack overflow at a callee's entry and deep inside),
-- natives in between (sort's comparator, gsub's function, coroutine.wrap), errors unwinding
-- through metamethods (the runtime-call count must be restored: a yield afterwards works),
-- nesting with xpcall in both orders, upvalues of unwound frames, and the hooks' events.
-- Nesting is limited as 5.1 limits its C calls: the pcall that would go past the limit
-- answers false, "C stack overflow".
local function show(...)
  local t = {select('#', ...), ...}
  for i = 2, t[1] + 1 do t[i] = type(t[i]) == "table" and "<table>" or tostring(t[i]) end
  print(table.concat(t, " ", 1, t[1] + 1))
end

show(pcall(function() end))
show(pcall(function() return 1 end))
show(pcall(function(...) return ... end, 1, nil, 3, nil))
show(pcall(function() return unpack({}, 1, 200) end))
show(pcall(select, "#", 1, 2, 3))
show(pcall(error))
show(pcall(error, nil))
show(pcall(error, "msg"))
show(pcall(error, "msg", 0))
show(pcall(error, {}))
show(pcall(error, 42))
show(pcall(function() error("level 1") end))
show(pcall(function() error("level 2", 2) end))
show(pcall(function() local x; return x.field end))
show(pcall(function() return 1 + {} end))
show(pcall(function() return #nil end))
show(pcall(nil))
show(pcall({}))
show(pcall(42, 1))
show(pcall(pcall))
show(pcall(pcall, pcall))
show(pcall(pcall, error, "nested"))
show(pcall(string.rep))
show(pcall(setmetatable({}, {__call = function(self, a, b) return "called", a, b end}), "x", "y"))
show(pcall(setmetatable({}, {__call = 1})))

-- Stack overflow: deep inside, and at the entry of a function pcall calls directly.
local function deep(n) return deep(n + 1) + 1 end
local ok, e = pcall(deep, 1)
print(ok, (string.gsub(e, "^.-:%d+: ", "")))
print(pcall(function() local t = {} for i = 1, 50 do t[i] = i end return pcall(unpack, t) end))

-- Natives between the error and pcall.
show(pcall(table.sort, {3, 2, 1}, function(a, b) error("in comparator") end))
show(pcall(string.gsub, "abc", "%w", function(c) error("in gsub " .. c, 0) end))
show(pcall(coroutine.wrap(function() error("in wrapped coroutine", 0) end)))
show(pcall(function() return pcall(table.sort, {3, 2, 1}, function() error("inner", 0) end) end))

-- Errors unwinding through metamethods leave no runtime call counted.
local mt = setmetatable({}, {__index = function(t, k) error("no field " .. k, 0) end,
                             __add = function() error("no add", 0) end})
show(pcall(function() return mt.foo end))
show(pcall(function() return mt + 1 end))
for k, v in pairs({}) do end
local co = coroutine.create(function()
  for i = 1, 3 do pcall(function() return mt.x end) end
  show(pcall(function() for k in pairs(setmetatable({}, {__index = function() error("x") end})) do end end))
  coroutine.yield("yield after caught metamethod errors")
  return "done"
end)
show(coroutine.resume(co))
show(coroutine.resume(co))
-- A yield across pcall is refused, as in 5.1; the error is pcall's to catch.
co = coroutine.create(function() show(pcall(coroutine.yield, 1)); show(pcall(function() coroutine.yield(2) end)); return "end" end)
show(coroutine.resume(co))

-- xpcall and pcall nested both ways: the innermost protection decides.
show(xpcall(function() return pcall(error, "inner", 0) end, function(m) return "handler saw " .. m end))
show(xpcall(function() local ok, m = pcall(error, "caught", 0); error("rethrown " .. m, 0) end, function(m) return "handler: " .. m end))
show(pcall(xpcall, function() error("x", 0) end, function(m) return "handled " .. m end))
show(xpcall(function() return pcall(table.sort, {2, 1}, function() error("cmp", 0) end) end, function(m) return "wrong handler" end))

-- Upvalues of the frames an error unwound are closed with their last values.
local get
pcall(function() local v = "captured" get = function() return v end v = "changed" error("x") end)
print(get())

-- Debug hooks: pcall's events, including one set while it runs.
local events = {}
local function hook(ev) local i = debug.getinfo(2, "nS") events[#events + 1] = ev .. ":" .. tostring(i.name) .. ":" .. i.what end
debug.sethook(hook, "cr")
pcall(math.floor, 1.5)
debug.sethook()
print(table.concat(events, " "))
events = {}
pcall(function() debug.sethook(hook, "cr") end)
debug.sethook()
print(table.concat(events, " "))

-- Nested 250 deep: the innermost that fits fails with 5.1's message, and every level returns.
local depth = 0
local function nest(n) depth = math.max(depth, n) return select(2, pcall(nest, n + 1)) end
print(pcall(nest, 1))
print(depth > 150, depth < 250)
local co3 = coroutine.wrap(function() return select(2, pcall(nest, 1)) end)
print(co3())

-- Many calls in a loop, mixing success and failure.
local sum = 0
for i = 1, 1000 do
  local ok, v = pcall(function(x) if x % 7 == 0 then error({x}) end return x end, i)
  sum = sum + (ok and v or -v[1])
end
print(sum)
