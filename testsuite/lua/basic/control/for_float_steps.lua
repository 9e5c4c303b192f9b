-- Fractional steps accumulate by repeated addition (i = i + step), exactly as lua5.1
-- does, so rounding decides whether the limit itself is reached. An implementation that
-- precomputes an iteration count or computes start + k*step would differ here.
local s, count = "", 0
for i = 0, 1, 0.1 do
  s = s .. i .. " "
  count = count + 1
end
print(count, s)
s, count = "", 0
for i = 0, 0.3, 0.1 do
  s = s .. i .. " "
  count = count + 1
end
print(count, s)
s, count = "", 0
for i = 1, 0, -0.25 do
  s = s .. i .. " "
  count = count + 1
end
print(count, s)
s, count = "", 0
for i = 0, 2, 0.7 do s = s .. i .. " " count = count + 1 end
print(count, s)
-- The last value of an accumulating loop, compared with the limit.
local last
for i = 0, 1, 0.1 do last = i end
print(last, last == 1, last < 1, 1 - last)
local n = 0
for i = 0, 100, 0.01 do n = n + 1 end
print("0..100 by 0.01", n)
local m = 0
for i = 1, 2, 1/3 do m = m + 1 end
print("1..2 by 1/3", m)
-- Huge steps and limits.
count = 0
for i = 1, 1e300, 1e299 do count = count + 1 end
print("1..1e300 by 1e299", count)
count = 0
for i = -1e15, 1e15, 5e14 do count = count + 1 end
print("-1e15..1e15 by 5e14", count)
local one, zero = 1, 0
count = 0
for i = 1, one / zero, 2^1020 do
  count = count + 1
  if count == 5 then break end
end
print("limit inf", count)
