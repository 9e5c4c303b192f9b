-- Table traversal: `pairs` over a large dictionary (a word index), over records with a few
-- fields (copying and serializing objects), over arrays and arrays with holes, `next` by
-- hand, and nested traversals of one table. What serializers, deep copies and reports do.
local WORDS = 60000
local RECORDS = 2000
local ROUNDS = 60

local index = {}
for i = 1, WORDS do index["w" .. i] = i % 97 end

local records = {}
for i = 1, RECORDS do
  records[i] = { id = i, name = "r" .. i, weight = i % 13, tags = i % 5, active = i % 2 == 0 }
end

local array = {}
for i = 1, 5000 do array[i] = i * 3 end
local holes = {}
for i = 1, 5000, 3 do holes[i] = i end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function describe(r)
  local n, weight = 0, 0
  for k, v in pairs(r) do
    n = n + 1
    if type(v) == "number" then weight = weight + v end
  end
  return n, weight
end

local total = 0
for round = 1, ROUNDS do
  local sum = 0
  for _, v in pairs(index) do sum = sum + v end
  total = total + sum
  for i = 1, #records do
    local c = copy(records[i])
    local n, w = describe(c)
    total = total + n + w
  end
  for k, v in pairs(array) do total = total + k - v / 3 end
  for k in pairs(holes) do total = total + 1 end
  local k, v = next(index)
  local count = 0
  while k do count = count + 1; k, v = next(index, k) end
  total = total + count
end

-- Pairs of fields of a small table, every pair (a traversal inside a traversal of one table).
local small = { a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8 }
local pairs_total = 0
for round = 1, 18000 do
  for _, x in pairs(small) do
    for _, y in pairs(small) do pairs_total = pairs_total + x * y end
  end
end

print("total", total)
print("pairs", pairs_total)
