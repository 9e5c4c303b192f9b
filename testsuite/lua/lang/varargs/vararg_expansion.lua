-- `...` expands to all arguments only at the end of an expression list (call
-- arguments, table constructor, return, multiple assignment); elsewhere and in
-- parentheses it is one value (nil when empty).
local function show(...) print(select("#", ...), ...) end
local function f(...)
  show(...)
  show(..., "end")
  show("start", ...)
  show((...))
  local a, b, c = ...
  print("assign", a, b, c)
  local x = ...
  print("first", x)
  local t = {..., ...}
  print("table", #t, t[1], t[2], t[3])
  return "ret", ...
end
f(1, 2, 3)
print("----")
f()
print("----")
f(nil, nil)
print("----")
print(f("r1", "r2"))
-- ... in arithmetic and concatenation uses the first value.
local function g(...) return ... + 1, ... .. "!" end
print(g(10, 20))
-- ... passed through several functions (`return ...` alone: return_vararg.lua).
local function pass(...) return select(1, ...) end
local function pass2(...) return pass(pass(...)) end
print(pass2(1, nil, 3, nil))
print(select("#", pass2(1, nil, 3, nil)))
local function pre(...) return "p", ... end
print(pre(pre(pre(1, nil))))
-- Named parameters followed by varargs.
local function named(a, b, ...)
  return a, b, select("#", ...), ...
end
print(named(1))
print(named(1, 2))
print(named(1, 2, 3, 4))
-- ... in a nested function is not visible (syntax error); checked with loadstring.
print(loadstring("local function f(...) return function() return ... end end"))
-- ... in the middle of a call argument list.
print(string.format("%s-%s-%s", pass("a", "b"), "c", "d"))
-- ... as the last argument of a method call.
local obj = {m = function(self, ...) return select("#", ...) end}
local function h(...) return obj:m(...) end
print(h(), h(1), h(1, 2, 3))
-- Varargs with many values.
local function many(...) return select("#", ...), (select(250, ...)) end
local big = {}
for i = 1, 250 do big[i] = i end
print(many(unpack(big)))
