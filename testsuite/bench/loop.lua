-- Nested numeric for loops with mixed arithmetic (+ - * / % on locals): the interpreter's
-- dispatch and number-crunching fast paths, no calls.
local sum, acc = 0, 0.5
for i = 1, 6000 do
  for j = 1, 6000 do
    local k = i * j + j
    sum = sum + k % 7 - j / 8
    acc = acc * 0.999 + (i - j) % 5
  end
end
print(sum, acc)
