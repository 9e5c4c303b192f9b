-- A library method called with a missing argument: the message names the method and
-- the argument number, located at the call.
local s = "abc"
print(s:rep(2))
print(s:sub(2))
print(s:rep())
