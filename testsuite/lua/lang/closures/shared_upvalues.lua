-- Closures created in the same scope share their upvalues: a write through one is
-- seen by the others and by the enclosing function while it is still running.
local function counter()
  local n = 0
  local function inc() n = n + 1 return n end
  local function get() return n end
  local function reset() n = 0 end
  return inc, get, reset
end
local inc, get, reset = counter()
inc() inc() inc()
print(get())
reset()
print(get(), inc(), get())
-- Separate calls make separate variables.
local inc2, get2 = counter()
inc2()
print(get(), get2())
-- The enclosing function sees writes made by its closures before it returns.
local function outer()
  local x = 1
  local function set(v) x = v end
  set(10)
  local seen = x
  x = 20
  local function read() return x end
  return seen, read()
end
print(outer())
-- Parameters are upvalues too.
local function adder(base)
  return function(v) base = base + v return base end
end
local a = adder(100)
print(a(1), a(2), a(3))
-- Several upvalues in one closure.
local function mk()
  local a, b, c = 1, 2, 3
  return function() a, b, c = b, c, a return a .. b .. c end
end
local rot = mk()
print(rot(), rot(), rot(), rot())
-- Upvalue holding a table: shared reference.
local function box()
  local t = {}
  return function(k, v) t[k] = v end, function(k) return t[k] end
end
local put, take = box()
put("x", 42)
print(take("x"), take("y"))
-- Closure stored in a table and called as a method.
local obj = {}
do
  local secret = "s3cr3t"
  function obj.reveal() return secret end
  function obj.change(v) secret = v end
end
print(obj.reveal())
obj.change("new")
print(obj.reveal())
-- A closure capturing a variable that is assigned after the closure is made.
local late
local function use_late() return late end
late = "assigned later"
print(use_late())
