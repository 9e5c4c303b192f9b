-- coroutine.wrap: a string error raised inside gets the wrapper caller's position added in
-- front (5.1's auxwrap), non-string errors pass unchanged, and calling a dead wrapper says
-- "cannot resume dead coroutine" with the position.
local w = coroutine.wrap(function() error("inner") end)
print(pcall(function() w() end))
local w0 = coroutine.wrap(function() error("no pos", 0) end)
print(pcall(function() w0() end))
print(pcall(w0))
local wn = coroutine.wrap(function() error(42) end)
print(pcall(function() wn() end))
local t = {}
local wt = coroutine.wrap(function() error(t) end)
local ok, e = pcall(function() wt() end)
print(ok, e == t)
local done = coroutine.wrap(function() return 1 end)
print(done())
print(pcall(function() done() end))
print(pcall(done))
local nested = coroutine.wrap(function()
  local inner = coroutine.wrap(function() error("deep") end)
  inner()
end)
print(pcall(function() nested() end))
local yielder = coroutine.wrap(function(...)
  local n = select("#", ...)
  while true do n = select("#", coroutine.yield(n)) end
end)
print(yielder(), yielder(1), yielder(1, 2, nil), yielder(nil))
