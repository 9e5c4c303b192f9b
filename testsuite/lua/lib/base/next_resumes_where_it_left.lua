-- `next` finds the key it is given where the previous step returned it, without looking it
-- up (a hint in the table): every traversal below must still visit each key once, whatever
-- else steps through the same table in between, and the order-independent results must
-- match 5.1's.

local function dictionary(n)
  local t = {}
  for i = 1, n do t["k" .. i] = i end
  return t
end

-- A large dictionary, with `pairs` and with explicit `next` calls.
local t = dictionary(5000)
local count, sum = 0, 0
for k, v in pairs(t) do count = count + 1; sum = sum + v end
print("pairs", count, sum)
count, sum = 0, 0
local k, v = next(t)
while k do count = count + 1; sum = sum + v; k, v = next(t, k) end
print("next", count, sum)

-- Two traversals of one table stepped in turn: each moves the hint away from the other.
local seen_a, seen_b, ka, kb = {}, {}, nil, nil
local steps_a, steps_b = 0, 0
repeat
  ka = next(t, ka)
  if ka then assert(not seen_a[ka]); seen_a[ka] = true; steps_a = steps_a + 1 end
  kb = next(t, kb)
  if kb then assert(not seen_b[kb]); seen_b[kb] = true; steps_b = steps_b + 1 end
until ka == nil and kb == nil
print("interleaved", steps_a, steps_b)

-- A traversal inside a traversal of the same table.
local small = dictionary(40)
local pairs_seen = 0
for a in pairs(small) do
  for b in pairs(small) do pairs_seen = pairs_seen + 1 end
end
print("nested", pairs_seen)

-- Clearing the visited field during the traversal (allowed): the next step still finds it.
local d = dictionary(3000)
count = 0
for key in pairs(d) do d[key] = nil; count = count + 1 end
print("cleared while visiting", count, next(d))

-- Clearing fields not visited yet: they are never visited.
d = dictionary(3000)
local cleared, bad = {}, 0
for key, value in pairs(d) do
  if cleared[key] or d[key] ~= value then bad = bad + 1 end
  local other = "k" .. (value % 3000 + 1)
  if d[other] ~= nil then d[other] = nil; cleared[other] = true end
end
print("cleared ahead", bad)

-- Keys of every kind in the hash part, and in the array part and named slots beside it.
local mixed = { 10, 20, 30, x = 1, y = 2 }
local tk, fk = {}, function() end
mixed[0] = "zero"; mixed[-1] = "minus one"; mixed[1.5] = "one and a half"; mixed[2^40] = "big"
mixed[true] = "true"; mixed[false] = "false"; mixed[tk] = "table"; mixed[fk] = "function"
for i = 1, 100 do mixed["s" .. i] = i end
local kinds, total = {}, 0
for key, value in pairs(mixed) do
  kinds[type(key)] = (kinds[type(key)] or 0) + 1
  total = total + 1
  assert(rawequal(mixed[key], value))
end
print("mixed", total, kinds.number, kinds.string, kinds.boolean, kinds.table, kinds["function"])
-- `-0` is the key `0`.
print("negative zero", next(mixed, -0) == next(mixed, 0), select(2, next({ [0] = "z" })))

-- An object with a few fields (named slots), then one grown into a dictionary.
local object = { name = "n", size = 3, colour = "red" }
local names = {}
for key in pairs(object) do names[#names + 1] = key end
table.sort(names)
print("object", table.concat(names, " "))
for i = 1, 200 do object["f" .. i] = i end
count = 0
for key in pairs(object) do count = count + 1 end
print("grown", count)

-- A key from before the table's hash part moved is still a valid key to `next`.
local moving = dictionary(10)
local before = next(moving)
for i = 11, 5000 do moving["k" .. i] = i end
local after = next(moving, before)
print("after rehash", type(after), after == nil or moving[after] ~= nil)

-- A key that is not in the table is an error, as in 5.1.
print("invalid", pcall(next, moving, "absent"))
print("invalid number", pcall(next, moving, 12345.5))
