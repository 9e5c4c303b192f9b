-- yield from inside nested Lua calls (several levels, recursive functions, loops,
-- and method calls) suspends the whole coroutine and resumes where it left off, with
-- locals of every level intact.
local function level3(x)
  local got = coroutine.yield("level3 " .. x)
  return x .. "+" .. tostring(got)
end
local function level2(x)
  local r = level3(x .. "2")
  coroutine.yield("level2 saw " .. r)
  return r
end
local function level1(x)
  local before = "local kept"
  local r = level2(x .. "1")
  return before, r
end
local co = coroutine.create(level1)
print(coroutine.resume(co, "x"))
print(coroutine.resume(co, "answer"))
print(coroutine.resume(co))
print(coroutine.status(co))
-- Recursive tree walk yielding leaves in order.
local tree = {{1, {2, 3}}, 4, {{5}, 6, {7, {8, {9}}}}}
local function walk(node)
  if type(node) == "number" then coroutine.yield(node) return end
  for _, child in ipairs(node) do walk(child) end
end
local out = {}
for leaf in coroutine.wrap(function() walk(tree) end) do out[#out + 1] = leaf end
print(table.concat(out, " "))
-- Yield inside loops with many locals alive.
local co2 = coroutine.wrap(function()
  local acc = {}
  for i = 1, 3 do
    local sq = i * i
    for j = 1, 2 do
      local tag = i .. ":" .. j
      coroutine.yield(tag, sq)
      acc[#acc + 1] = tag
    end
  end
  return table.concat(acc, ",")
end)
for _ = 1, 6 do print(co2()) end
print(co2())
-- Yield through a method call and a closure.
local obj = {n = 0}
function obj:tick() self.n = self.n + 1 coroutine.yield(self.n) return self end
local co3 = coroutine.wrap(function() obj:tick():tick():tick() return "ticked" end)
print(co3(), co3(), co3(), co3(), obj.n)
-- Yield across a call to a function stored in a table, with upvalues.
local function make_yielder(prefix)
  return function(v) return coroutine.yield(prefix .. v) end
end
local y = make_yielder(">")
local co4 = coroutine.wrap(function() local a = y("a") local b = y("b") return a .. b end)
print(co4(), co4("A"), co4("B"))
-- Deep recursion then yield at the bottom.
local function deep(n) if n == 0 then return coroutine.yield("bottom") end return deep(n - 1) end
local co5 = coroutine.create(function() return deep(1000) end)
print(coroutine.resume(co5))
print(coroutine.resume(co5, "came back"))
