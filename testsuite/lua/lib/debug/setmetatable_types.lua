-- debug.setmetatable gives every value of a non-table type a shared metatable: numbers
-- (__index, __call), booleans (__tostring, __len) and functions (__index), each removed
-- again with nil; 5.1 returns true.
print(debug.setmetatable(0, {__index = function(n, k) return k .. n end, __call = function(n, a) return n * a end}))
local n = 5
print(n.x, n(3), (2).y)
debug.setmetatable(0, nil)
print(debug.getmetatable(1), pcall(function() return n.x end))
debug.setmetatable(true, {__tostring = function(b) return b and "YES" or "NO" end, __len = function() return 99 end})
print(tostring(true), tostring(false), #true)
debug.setmetatable(true, nil)
print(tostring(true))
debug.setmetatable(print, {__index = {kind = "function"}})
print(print.kind, (function() end).kind)
debug.setmetatable(print, nil)
