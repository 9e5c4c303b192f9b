-- Ordering two tables without __lt is an error.
local a, b = {1}, {2}
print(a == b, a ~= b)
print(a < b)
