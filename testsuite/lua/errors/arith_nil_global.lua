-- Arithmetic on an undefined global: the message names the global.
local total = 0
for i = 1, 3 do
  total = total + i
  print("total", total)
end
total = total + missing_value
print("never printed")
