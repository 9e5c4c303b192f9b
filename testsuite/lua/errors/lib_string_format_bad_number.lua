-- string.format("%d") with a non-numeric string argument: bad argument #3 to 'format'.
local rows = {{"apples", "3"}, {"pears", "12"}, {"plums", "many"}}
for _, row in ipairs(rows) do
  print(string.format("%-8s %3d", row[1], row[2]))
end
