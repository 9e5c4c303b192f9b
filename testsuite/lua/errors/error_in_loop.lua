-- A loop that works for a while and then fails when a value becomes nil.
function next_value(i)
  if i < 5 then return i * i end
  return nil
end
local sum = 0
for i = 1, 10 do
  local v = next_value(i)
  print("i", i, "v", v)
  sum = sum + v
end
print("never", sum)
