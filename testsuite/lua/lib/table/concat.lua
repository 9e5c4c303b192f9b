-- table.concat: default and custom separators, i and j ranges (empty when i > j), numbers
-- as elements, string-number separators, raw access, and the argument errors.
print(table.concat({}))
print(table.concat({"a", "b", "c"}))
print(table.concat({"a", "b", "c"}, ", "))
print(table.concat({"a", "b", "c"}, ", ", 2))
print(table.concat({"a", "b", "c"}, ", ", 2, 3))
print(table.concat({"a", "b", "c"}, ", ", 3, 2) == "")
print(table.concat({"a", "b", "c"}, ", ", 1, 1))
print(table.concat({1, 2.5, "x", -3}, " "))
print(table.concat({"a", "b"}, 0))
print(table.concat({"a", "b"}, ""))
print(table.concat({[0] = "z", "a", [-1] = "m"}, "-", -1, 1))
print(table.concat({"x", "y"}, "\0") == "x\0y")
print(#table.concat({"a", "b", "c"}, "", "1", "3"))
local big = {}
for i = 1, 1000 do big[i] = i % 10 end
print(#table.concat(big), #table.concat(big, ", "))
print(pcall(table.concat))
print(pcall(table.concat, "abc"))
print(pcall(table.concat, {}, {}))
print(pcall(table.concat, {}, ",", "x"))
-- concat uses raw access: __index is not consulted.
local proxy = setmetatable({"a"}, {__index = function(_, i) return "m" .. i end})
print(table.concat(proxy, ","))
