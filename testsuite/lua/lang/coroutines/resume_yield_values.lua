-- Values flow both ways: resume's extra arguments become the body's parameters (first
-- resume) or yield's results (later resumes); yield's arguments and the body's return
-- values become resume's results after true.
local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c, d = coroutine.yield(a + b, "y1")
  print("got", c, d)
  local e = coroutine.yield()
  print("got", e)
  local n = select("#", coroutine.yield(nil, nil))
  print("count", n)
  return "ret1", "ret2", nil
end)
print(coroutine.resume(co, 1, 2))
print(coroutine.resume(co, "c", "d", "extra"))
print(coroutine.resume(co))
print(select("#", coroutine.resume(co, nil, nil, nil)))
print(coroutine.resume(co))
-- Resuming with no values gives nils to the first resume's parameters.
local co2 = coroutine.create(function(...) return select("#", ...), ... end)
print(coroutine.resume(co2))
local co3 = coroutine.create(function(...) return select("#", ...), ... end)
print(coroutine.resume(co3, nil, 2, nil))
-- Many values through yield.
local co4 = coroutine.create(function()
  local t = {}
  for i = 1, 100 do t[i] = i end
  local back = {coroutine.yield(unpack(t))}
  return #back, back[1], back[100]
end)
local r = {coroutine.resume(co4)}
print(#r, r[1], r[2], r[101])
local t = {}
for i = 1, 100 do t[i] = -i end
print(coroutine.resume(co4, unpack(t)))
-- Tables and functions pass by reference.
local shared = {n = 0}
local co5 = coroutine.create(function(tab)
  while true do
    tab.n = tab.n + 1
    tab = coroutine.yield(tab) or tab
  end
end)
local _, back = coroutine.resume(co5, shared)
print(back == shared, shared.n)
coroutine.resume(co5)
coroutine.resume(co5)
print(shared.n)
-- The body must be a Lua function in 5.1.
print(pcall(coroutine.create, select))
