-- String building: concatenation of strings and numbers (number formatting), length and
-- comparison of many short-lived strings, so allocation and garbage collection matter.
local total, longest, last = 0, "", ""
for i = 1, 1200000 do
  local s = "item" .. i .. ":" .. i * 3 .. "/" .. i / 4 .. ";"
  total = total + #s
  if s > longest then longest = s end
  if i % 4000 == 0 then last = last .. #s end
end
local line = ""
for i = 1, 20000 do
  line = line .. "x"
  if #line > 100 then line = "" .. #line end
end
print(total, longest, #last, line)
