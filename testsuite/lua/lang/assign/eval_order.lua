-- Defined evaluation facts: all right-hand expressions are evaluated before assigning;
-- table/key subexpressions on the left are evaluated before assignment; in calls and
-- constructors, arguments are evaluated left to right; and/or short-circuit.
local log = {}
local function L(v) log[#log + 1] = tostring(v) return v end
local function flush() print(table.concat(log, " ")) log = {} end
local r = {L(1), L(2), L(3)}
flush()
print(L("a"), L("b"), L("c"))
flush()
local x = L(1) + L(2) * L(3)
print(x) flush()
local s = L("p") .. L("q") .. L("r")
print(s) flush()
-- Short circuit: the right side is not evaluated.
local _ = L(false) and L("never")
local _ = L(1) or L("never")
local _ = L(nil) or L("yes")
flush()
-- Left side index expressions with the old value of a variable.
-- (`t[k], k = ...` with k assigned after the indexed target: index_then_local.lua.)
local t = {}
local k = 1
k, t[k] = 3, "again"
print(t[1], t[3], k)
-- A call whose results feed an assignment: the table reference on the left is the one
-- evaluated before the call.
local tab1, tab2 = {}, {}
local cur = tab1
local function switch() cur = tab2 return "val" end
cur.f = switch()
print(tab1.f, tab2.f)
-- Arguments evaluated before the function body.
local function f(a, b) return a .. b end
print(f(L("x"), L("y")))
flush()
-- Method call: the object expression is evaluated once.
local count = 0
local obj = {m = function(self, v) return v end}
local function get() count = count + 1 return obj end
print(get():m("once"), count)
-- Nested calls.
print(f(f(L(1), L(2)), f(L(3), L(4))))
flush()
-- Comparison chains evaluate both operands.
print(L(1) < L(2), L(3) == L(3))
flush()
-- Loop bounds are evaluated once, before the loop.
local n = 0
for i = L(1), L(3) do n = n + 1 end
print(n) flush()
