-- Numeric for: inclusive bounds, default step 1, negative steps, zero-iteration loops,
-- bounds evaluated once, and a loop variable that is a fresh local (assigning to it does
-- not change the iteration, and it is not visible after the loop).
local s = ""
for i = 1, 5 do s = s .. i .. " " end
print("1..5", s)
s = ""
for i = 5, 1, -1 do s = s .. i .. " " end
print("5..1 step -1", s)
s = ""
for i = 0, 10, 3 do s = s .. i .. " " end
print("0..10 step 3", s)
s = ""
for i = 10, 0, -4 do s = s .. i .. " " end
print("10..0 step -4", s)
s = ""
for i = -3, 3 do s = s .. i .. " " end
print("-3..3", s)
local count = 0
for i = 1, 0 do count = count + 1 end
for i = 0, 1, -1 do count = count + 1 end
for i = 5, 4, 1 do count = count + 1 end
print("zero iterations", count)
count = 0
for i = 7, 7 do count = count + 1 end
for i = 7, 7, -1 do count = count + 1 end
print("single iteration", count)
-- Bounds and step are evaluated once, before the loop.
local n = 3
count = 0
for i = 1, n do
  n = n + 1
  count = count + 1
end
print("limit fixed", count, n)
-- Assigning to the control variable does not affect the iteration.
s = ""
for i = 1, 5 do
  s = s .. i
  i = i * 10
  s = s .. ":" .. i .. " "
end
print("modified var", s)
-- The loop variable is local to the loop.
local i = "outer"
for i = 1, 2 do end
print("after loop", i)
-- Non-integer bounds: the limit need not be reached exactly.
s = ""
for j = 1, 3.5 do s = s .. j .. " " end
print("1..3.5", s)
s = ""
for j = 0.5, 3 do s = s .. j .. " " end
print("0.5..3", s)
-- Sum of 1..1000 and of the even numbers in it.
local sum, even = 0, 0
for j = 1, 1000 do sum = sum + j end
for j = 2, 1000, 2 do even = even + j end
print("sums", sum, even)
-- Bounds from expressions.
local lo, hi = 2, 3
s = ""
for j = lo * 2, hi * 3, lo do s = s .. j .. " " end
print("expr bounds", s)
