-- Traversals of hash parts at every fill: a hash part is a quarter to five eighths empty, and
-- the traversal tests eight nodes at a time. Sizes around a group (and smaller than one),
-- keys removed in patterns during and before the traversal, `pairs` and `next` by hand:
-- every live key is seen once, whatever the order.

local function check(t, label)
  local count, sum, seen = 0, 0, {}
  for k, v in pairs(t) do
    assert(not seen[k], "key seen twice")
    seen[k] = true
    count = count + 1
    sum = sum + v
  end
  local count2, sum2 = 0, 0
  local k, v = next(t)
  while k ~= nil do
    count2 = count2 + 1
    sum2 = sum2 + v
    k, v = next(t, k)
  end
  assert(count == count2 and sum == sum2)
  print(label, count, sum)
end

for n = 0, 40 do
  local t = {}
  for i = 1, n do t["k" .. i] = i end
  check(t, "strings " .. n)
  for i = 1, n, 3 do t["k" .. i] = nil end
  check(t, "every third removed " .. n)
  local u = {}
  for i = 1, n do u[i * 1.5] = i end
  check(u, "numbers " .. n)
end

-- Large and sparse: grown past a rehash, then thinned out.
for _, n in ipairs({ 96, 97, 768, 769, 1500 }) do
  local t = {}
  for i = 1, n do t["w" .. i] = i % 97 end
  check(t, "dictionary " .. n)
  for i = 1, n do if i % 8 ~= 0 then t["w" .. i] = nil end end
  check(t, "one in eight left " .. n)
  for i = 1, n do t["w" .. i] = nil end
  check(t, "emptied " .. n)
end

-- Removing each key as it is visited (allowed during a traversal), and the one after it.
local t = {}
for i = 1, 300 do t["x" .. i] = i end
local visited = 0
for k in pairs(t) do
  visited = visited + 1
  t[k] = nil
end
print("cleared while traversing", visited, next(t))

local keys = {}
for i = 1, 200 do keys[i] = "y" .. i; t[keys[i]] = i end
local n = 0
for k, v in pairs(t) do
  n = n + 1
  t[k] = nil
end
print("second round", n, next(t))
