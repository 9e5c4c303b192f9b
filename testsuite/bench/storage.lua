-- Storage (are-we-fast-yet): a recursively built tree of arrays whose leaves are arrays of
-- random length; allocation of many tables of varying size (GC pressure).
local ROUNDS = 300
local DEPTH = 7

local seed = 74755
local function next_random()
  seed = (seed * 1309 + 13849) % 65536
  return seed
end

local count = 0
local function new_array(n, fill)
  local a = {}
  for i = 1, n do a[i] = fill end
  return a
end

local function build_tree_depth(depth)
  count = count + 1
  if depth == 1 then
    return new_array(next_random() % 10 + 1, 0)
  end
  local arr = new_array(4, false)
  for i = 1, 4 do arr[i] = build_tree_depth(depth - 1) end
  return arr
end

local function leaves(t, depth)
  if depth == 1 then return #t end
  local n = 0
  for i = 1, #t do n = n + leaves(t[i], depth - 1) end
  return n
end

local total, leaf_total = 0, 0
local last
for _ = 1, ROUNDS do
  seed = 74755
  count = 0
  local tree = build_tree_depth(DEPTH)
  -- keep a few trees alive at once so the collector has live data to trace
  local tree2 = build_tree_depth(DEPTH - 1)
  total = total + count
  leaf_total = leaf_total + leaves(tree, DEPTH) + leaves(tree2, DEPTH - 1)
  last = count
end
print("nodes per round", last)
print("total nodes", total)
print("leaf slots", leaf_total)
