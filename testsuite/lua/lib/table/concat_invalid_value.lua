-- table.concat with an element that is not a string or number: Debian's lua5.1 names the
-- value's type and the index ("invalid value (table) at index 2 in table for 'concat'").
print(pcall(table.concat, {1, {}, 3}))
print(pcall(table.concat, {1, 2, 3}, ",", 1, 5))
print(pcall(table.concat, {true}))
print(pcall(table.concat, {"a", nil, "c"}, ",", 1, 3))
print(pcall(table.concat, {}, ",", 1, 1))
print(pcall(function() return table.concat({1, print}) end))
local proxy = setmetatable({"a"}, {__index = function(_, i) return "m" .. i end})
print(pcall(table.concat, proxy, ",", 1, 2))
