-- pcall's callee usually returns its results in its own frame, and pcall returns them from
-- there with `true` in the dead slot below them; results that lie on another stack (a
-- coroutine's, returned through resume or a wrap function called under pcall) and a set
-- return hook take the copy. Both ways, with every result count.
local co = coroutine.create(function(a, b)
  local x, y = coroutine.yield(a + b, "y1", "y2")
  coroutine.yield(x, y)
  return "ret", 1, 2, 3
end)
print(pcall(coroutine.resume, co, 1, 2))
print(pcall(coroutine.resume, co, "p", "q"))
print(pcall(coroutine.resume, co))
print(pcall(coroutine.resume, co))
local w = coroutine.wrap(function(...) local t = {...} while true do t = {coroutine.yield(unpack(t))} end end)
print(pcall(w, 1, 2, 3))
print(pcall(w))
print(pcall(w, nil, nil))
print(pcall(pcall, w, "a"))
print(xpcall(function() return w("x", "y") end, print))
local function many(n) local t = {} for i = 1, n do t[i] = i * 10 end return unpack(t) end
for n = 0, 6 do print(n, pcall(many, n)) end
print(select('#', pcall(function() end)))
print(pcall(function(...) return ... end, nil, false, nil))
print(pcall(select, 2, "a", "b", "c"))
print(pcall(string.rep, "x", 3))
local t = {pcall(unpack, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})}
print(#t, t[1], t[11])
-- a loop of protected calls, the results used right away
local s = 0
for i = 1, 2000 do
  local ok, a, b = pcall(function(x) return x, x + 1 end, i)
  s = s + a + b
end
print(s)
local returns = 0
debug.sethook(function() returns = returns + 1 end, "r")
local r1, r2, r3 = pcall(math.max, 3, 9, 4)
debug.sethook()
print(r1, r2, r3, returns > 0)
