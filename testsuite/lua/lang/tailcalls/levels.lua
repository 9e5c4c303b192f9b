-- Proper tail calls leave "(tail call)" levels (one per replaced frame) in tracebacks, getinfo,
-- error levels and getfenv; a tail-called function has no name; a tail call into a native
-- function (directly or through __call) keeps the caller's frame.
local function show(tag)
  print(tag, (debug.traceback("tb", 1):gsub("\n[^\n]*%[C%]: %?$", "")))
end
local function leaf() show("leaf") return 1 end
local function mid() return leaf() end
local function top() local r = mid() return r end
top()
-- a chain of tail calls: every lost frame is a level
local function chain(n) if n == 0 then show("chain") return 0 end return chain(n - 1) end
chain(3)
local function depth()
  local n = 0
  while debug.getinfo(n + 1, "S") do n = n + 1 end
  return n
end
local d0 = depth()
local function tc(n) if n == 0 then return depth() end return tc(n - 1) end
print("depth", tc(20) - d0)
-- error levels through a tail call
local function thrower() error("boom", 2) end
local function via() return thrower() end
print(pcall(via))
local function thrower3() error("boom3", 3) end
local function via3() return thrower3() end
local function outer3() local x = via3() return x end
print(pcall(outer3))
-- names: a tail-called function has none
local function named() local i = debug.getinfo(1, "n") return i.name, i.namewhat end
local function caller() return named() end
print(caller())
local function caller2() local a, b = named() return a, b end
print(caller2())
-- the tail level itself
local function peek() local i = debug.getinfo(2, "Sln") return i.what, i.source, i.short_src, i.currentline, i.name, i.namewhat, i.linedefined end
local function p2() return peek() end
print(p2())
local function peekf() return debug.getinfo(2, "f").func end
local function pf() return peekf() end
print(pf())
-- tail call into a native keeps the frame
local function te() return error("native tail") end
print(pcall(te))
print(select(2, xpcall(te, debug.traceback)))
-- __call in tail position
local callable = setmetatable({}, {__call = function(self, x) show("call") return x end})
local function tcall() return callable(5) end
print(tcall())
local ncall = setmetatable({}, {__call = function(self, ...) return select("#", ...) end})
local function tn() return ncall("a", "b") end
print(tn())
local select_mt = setmetatable({}, {__call = select})
local function ts() return select_mt("x", "y") end
print(pcall(ts))
-- vararg tail calls
local function va(...) show("va") return select("#", ...) end
local function vb(...) return va(...) end
print(vb(1, 2, 3))
-- coroutines
local co = coroutine.create(function() local function inner() coroutine.yield() end local function o() return inner() end return o() end)
coroutine.resume(co)
print(debug.traceback(co))
print(debug.traceback(co, "msg", 1))
-- getfenv levels
local function ge() return getfenv(2) end
local function gt() return ge() end
print(pcall(gt))
local function gl() return getfenv(1) == _G end
local function gm() return gl() end
print(gm())
-- error at top of a deep tail chain to the top level handler
local function deep(n) if n == 0 then error("deep") end return deep(n - 1) end
print(select(2, xpcall(function() return deep(30) end, debug.traceback)))
