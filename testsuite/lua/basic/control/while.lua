-- while loops: condition checked before each iteration (zero iterations possible),
-- counting up and down, non-boolean conditions, and nested loops.
local i = 0
while i < 5 do
  i = i + 1
end
print("counted to", i)
local n = 10
while false do n = n + 1 end
while nil do n = n + 1 end
while n < 10 do n = n + 1 end
print("never ran", n)
local s = ""
local k = 5
while k > 0 do
  s = s .. k
  k = k - 1
end
print(s, k)
-- A value condition: the loop stops when the variable becomes nil.
local v = 3
while v do
  v = v - 1
  if v == 0 then v = nil end
end
print("v is", v)
-- Powers of two below 1000.
local p, out = 1, ""
while p < 1000 do
  out = out .. p .. " "
  p = p * 2
end
print(out)
-- Nested: multiplication table 3x3 as strings.
local r = 1
while r <= 3 do
  local line = ""
  local c = 1
  while c <= 3 do
    line = line .. r * c .. "\t"
    c = c + 1
  end
  print(line)
  r = r + 1
end
-- Fractional counter.
local f, count = 0, 0
while f < 1 do f = f + 0.25 count = count + 1 end
print(f, count)
