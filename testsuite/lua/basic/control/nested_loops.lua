-- Loops of different kinds nested inside each other, sharing and shadowing locals.
local total = 0
for i = 1, 10 do
  local j = 0
  while j < i do
    j = j + 1
    local k = 0
    repeat
      k = k + 1
      total = total + 1
    until k >= j
  end
end
print("triangle sums", total)
-- Count lattice points in a circle of radius 20.
local r = 20
local inside = 0
for x = -r, r do
  for y = -r, r do
    if x * x + y * y <= r * r then inside = inside + 1 end
  end
end
print("lattice points", inside)
-- Pythagorean triples with c <= 30.
local triples = ""
for a = 1, 30 do
  for b = a, 30 do
    for c = b, 30 do
      if a * a + b * b == c * c then triples = triples .. a .. "," .. b .. "," .. c .. " " end
    end
  end
end
print(triples)
-- Shadowing the loop variable in an inner loop.
local out = ""
for i = 1, 2 do
  for i = 10, 11 do out = out .. i .. " " end
  out = out .. i .. " | "
end
print(out)
