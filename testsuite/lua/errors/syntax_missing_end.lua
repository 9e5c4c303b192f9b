-- An `if` without `end`: the error is reported at the end of the file.
local x = 1
if x > 0 then
  print("positive")
while x < 3 do
  x = x + 1
end
