-- table.sort with a comparator that is always true: "invalid order function for sorting".
local t = {}
for i = 1, 10 do t[i] = (i * 7) % 10 end
table.sort(t)
print(table.concat(t, " "))
table.sort(t, function(a, b) return true end)
print("not reached")
