-- Each iteration of a loop has fresh local variables: closures made in different
-- iterations capture different variables (numeric for, generic for, while and repeat
-- with a local in the body), while a variable declared outside the loop is shared.
local fs = {}
for i = 1, 3 do fs[#fs + 1] = function() return i end end
print(fs[1](), fs[2](), fs[3]())
-- Modifying the captured copy does not affect the loop.
local gs = {}
for i = 1, 3 do
  gs[i] = function() i = i + 10 return i end
end
print(gs[1](), gs[1](), gs[2](), gs[3]())
-- Generic for: both variables are fresh.
local hs = {}
for k, v in ipairs({"a", "b", "c"}) do hs[k] = function() return k .. v end end
print(hs[1](), hs[2](), hs[3]())
local ps = {}
for k, v in pairs({x = 1}) do ps[1] = function() return k, v end end
print(ps[1]())
-- While loop with a local in the body.
local ws = {}
local j = 0
while j < 3 do
  j = j + 1
  local copy = j
  ws[j] = function() return copy end
end
print(ws[1](), ws[2](), ws[3]())
-- While loop capturing the outer variable: all see the final value.
local shared = {}
local m = 0
while m < 3 do
  m = m + 1
  shared[m] = function() return m end
end
print(shared[1](), shared[2](), shared[3]())
-- Repeat loop: the local is visible in the until condition and fresh each time.
local rs = {}
local r = 0
repeat
  r = r + 1
  local v = r * 10
  rs[r] = function() return v end
until v >= 30
print(rs[1](), rs[2](), rs[3]())
-- Closures sharing a per-iteration variable within one iteration.
local pairs_of = {}
for i = 1, 2 do
  local n = i * 100
  pairs_of[i] = {function() n = n + 1 return n end, function() return n end}
end
pairs_of[1][1]() pairs_of[1][1]()
print(pairs_of[1][2](), pairs_of[2][2]())
-- Break out of a loop after making a closure: the variable is closed.
local saved
for i = 1, 10 do
  local sq = i * i
  saved = function() return sq end
  if i == 4 then break end
end
print(saved())
-- Nested loops.
local grid = {}
for x = 1, 2 do
  for y = 1, 2 do
    grid[#grid + 1] = function() return x .. "," .. y end
  end
end
for _, f in ipairs(grid) do io.write(f(), " ") end
print()
-- Float loop variable captured.
local fl = {}
for v = 0.5, 1.5, 0.5 do fl[#fl + 1] = function() return v end end
print(fl[1](), fl[2](), fl[3]())
