-- Booleans never convert to numbers.
print("start")
print(1 + 2, true and 3)
local flag = true
print(-flag)
