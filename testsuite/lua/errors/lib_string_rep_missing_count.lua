-- string.rep called at top level without its count: an uncaught bad-argument error that
-- names the function and is located at the call.
local s = string.rep("ab", 2)
print(s)
local t = string.rep("x")
print("not reached", t)
