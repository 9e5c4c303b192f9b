-- __len: Lua 5.1 does not consult __len for tables (the primitive length is used) or
-- for strings. The # operator on other types is an error naming the operand.
local t = setmetatable({1, 2, 3}, {__len = function() return 99 end})
print(#t)
local e = setmetatable({}, {__len = function() return 42 end})
print(#e)
-- String length ignores the string metatable too.
local smt = getmetatable("")
smt.__len = function() return -1 end
print(#"hello")
smt.__len = nil
-- Other types.
print(pcall(function() local x = 5 return #x end))
print(pcall(function() local x = nil return #x end))
print(pcall(function() local x = true return #x end))
print(pcall(function() local f = print return #f end))
