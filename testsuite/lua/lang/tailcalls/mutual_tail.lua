-- Mutual tail recursion (even/odd, a state machine) with a million steps does not
-- overflow; tail calls through pcall are not tail calls but still fine at modest depth.
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(1000000), is_odd(1000000), is_even(999999), is_odd(999999))
-- A three-state machine.
local a, b, c
local visits = {a = 0, b = 0, c = 0}
function a(n) visits.a = visits.a + 1 if n == 0 then return "a" end return b(n - 1) end
function b(n) visits.b = visits.b + 1 if n == 0 then return "b" end return c(n - 1) end
function c(n) visits.c = visits.c + 1 if n == 0 then return "c" end return a(n - 1) end
print(a(1000000), visits.a, visits.b, visits.c)
-- Tail calls through a dispatch table.
local handlers = {}
handlers.ping = function(n, log) if n == 0 then return log end return handlers.pong(n - 1, log + 1) end
handlers.pong = function(n, log) if n == 0 then return log end return handlers.ping(n - 1, log + 2) end
print(handlers.ping(1000000, 0))
-- What is not a tail call: extra parentheses, an operation after the call, or a local
-- assignment. These must work at small depth.
local function not_tail1(n) if n == 0 then return 0 end return (not_tail1(n - 1)) end
local function not_tail2(n) if n == 0 then return 0 end return 1 + not_tail2(n - 1) end
local function not_tail3(n) if n == 0 then return 0 end local r = not_tail3(n - 1) return r end
print(not_tail1(5000), not_tail2(5000), not_tail3(5000))
-- Parentheses truncate the results of a tail-position call.
local function two() return 1, 2 end
local function paren() return (two()) end
local function tail() return two() end
print(paren())
print(tail())
-- A tail call from a vararg function passes its varargs on.
local function sink(...) return select("#", ...) end
local function forward(...) return sink(...) end
print(forward(), forward(nil), forward(1, 2, 3))
