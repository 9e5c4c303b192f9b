-- math.random and math.randomseed: a fixed seed gives the same sequence as 5.1 (both use
-- the C library's rand()), the three call forms (float in [0,1), 1..m, m..n), reseeding
-- repeats the sequence, and the errors: empty intervals and too many arguments.
math.randomseed(42)
local a = {}
for i = 1, 5 do a[#a + 1] = string.format("%.10f", math.random()) end
print(table.concat(a, " "))
local b = {}
for i = 1, 10 do b[#b + 1] = math.random(10) end
print(table.concat(b, " "))
local c = {}
for i = 1, 10 do c[#c + 1] = math.random(5, 9) end
print(table.concat(c, " "))
math.randomseed(42)
print(string.format("%.10f", math.random()) == a[1])
math.randomseed(7)
local d = {}
for i = 1, 8 do d[#d + 1] = math.random(-3, 3) end
print(table.concat(d, " "))
print(math.random(1), math.random(4, 4), math.random(-5, -5))
-- Range and type properties over many draws.
math.randomseed(123)
local okf, oki, minv, maxv = true, true, 100, 0
for i = 1, 2000 do
  local f = math.random()
  if f < 0 or f >= 1 then okf = false end
  local n = math.random(1, 6)
  if n ~= math.floor(n) then oki = false end
  if n < minv then minv = n end
  if n > maxv then maxv = n end
end
print(okf, oki, minv, maxv)
print(math.random(2.9), math.random(1.5, 1.9))
print(select("#", math.randomseed(1)))
print(pcall(math.random, 0))
print(pcall(math.random, -1))
print(pcall(math.random, 3, 1))
print(pcall(math.random, 1, 2, 3))
print(pcall(math.random, "x"))
print(pcall(math.randomseed))
print(pcall(math.randomseed, "s"))
print(pcall(function() return math.random(10, 5) end))
