-- table.foreach and table.foreachi (deprecated but present in 5.1): calling the function
-- for each pair / index, stopping early when it returns a non-nil value.
local keys = {}
table.foreach({a = 1, b = 2, c = 3}, function(k, v) keys[#keys + 1] = k .. "=" .. v end)
table.sort(keys)
print(table.concat(keys, " "))
table.foreachi({"x", "y", "z"}, print)
print(table.foreachi({10, 20, 30}, function(i, v) if v == 20 then return "stopped at " .. i end end))
print(table.foreach({}, print))
print(pcall(table.foreach, {}, 1))
print(pcall(table.foreachi, nil, print))
