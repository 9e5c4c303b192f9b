-- Replacing a metatable protected by __metatable: "cannot change a protected metatable".
local obj = setmetatable({}, {__metatable = "locked"})
print(getmetatable(obj))
setmetatable(obj, {})
print("not reached")
