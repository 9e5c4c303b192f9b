-- Arithmetic on a missing field names the field.
local point = {x = 1}
print(point.x + 1)
print(point.x + point.y)
