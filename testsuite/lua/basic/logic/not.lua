-- not always returns a boolean: true only for nil and false.
print(not nil, not false, not true, not 0, not "", not "false", not print)
print(not not nil, not not 1, not not false, not not "x")
local a, b = 1, nil
print(not a, not b, not (a and b), not a or not b, not (a == 1), not a == 1)
print(not 1 == 2, not (1 == 2), (not 1) == false)
local count = 0
local flag = false
while not flag do
  count = count + 1
  flag = count >= 3
end
print(count, flag, not flag)
