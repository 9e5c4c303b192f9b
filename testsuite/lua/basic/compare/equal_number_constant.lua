-- Equality with a number constant (the variant that knows its constant is a number): only a
-- number equal to it, never a string that reads as one, never __eq; -0 equals 0, NaN nothing.
local mt = {__eq = function() print("__eq called"); return true end}
local t = setmetatable({}, mt)
local nan = 0/0
local values = {0, -0, 1, 1.5, -1, 2^53, nan, 1/0, "0", "1", true, false, nil, t, print}
for i = 1, 15 do
  local v = values[i]
  print(i, v == 0, v ~= 0, v == 1, v ~= 1, v == 1.5, v == -1, v == 1/0, v == 2^53)
  if v == 0 then print("eq0") else print("ne0") end
  if v ~= 1 then print("ne1") else print("eq1") end
end
print(nan == nan, nan ~= nan)
local x = 0
for i = 1, 5 do if x == 3 then print("three at", i) end x = x + 1 end
