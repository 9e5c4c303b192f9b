-- Left operands of and/or that can never be the result (x or 0) are only tested, never
-- loaded, as in 5.1: their constants stay out of the constant table, where 0 and -0 merge.
local x, y, z = nil, 5, false
local function f() return ((x or 0) and y), ((y and nil) or 7), ((z or "s") and (z or 1)), -0 end
print(f())
local function g() local r = ((x or 0) and (y and false)) print(r, -0) end g()
local function h() print((1 or x) and y, ((x and nil) and 2) or 3, (not (x or 1)) or 4, -0) end h()
local function k() print((y or (x or 0)) and 9, ((x or 0 or 1)) and 10, -0) end k()
print(pcall(function() return (undefinedf() or 0) and 1 end))
