-- break leaves the innermost loop only, works in all loop kinds, and may be followed by
-- nothing but the end of its block (Lua 5.1 requires it to be the last statement).
local s = ""
for i = 1, 10 do
  if i > 4 then break end
  s = s .. i
end
print("for", s)
local i = 0
while true do
  i = i + 1
  if i == 7 then break end
end
print("while true", i)
local n = 0
repeat
  n = n + 1
  if n * n > 50 then break end
until false
print("repeat", n)
-- break in a nested loop leaves only the inner loop.
local pairs_found = ""
for a = 1, 4 do
  for b = 1, 4 do
    if b > a then break end
    if (a + b) % 3 == 0 then pairs_found = pairs_found .. a .. b .. " " end
  end
end
print("nested", pairs_found)
-- First number above 1000 divisible by 7 and 11.
local found
for k = 1001, 2000 do
  if k % 7 == 0 and k % 11 == 0 then
    found = k
    break
  end
end
print("found", found)
-- break inside a do-block inside a loop.
local m = 0
while m < 100 do
  m = m + 1
  do
    local limit = 3
    if m >= limit then break end
  end
end
print("do block", m)
-- Locals declared before break are still cleaned up; the loop after it works normally.
local last = 0
for j = 1, 3 do
  local sq = j * j
  last = sq
  if j == 2 then break end
end
print("last", last)
for j = 1, 2 do last = last + j end
print("after", last)
