-- Permute (are-we-fast-yet): recursive generation of all permutations of a 6-element array
-- by swapping, counting the calls; recursion, upvalue reads/writes and array swaps.
local ROUNDS = 1000
local count, v

local function swap(i, j)
  local tmp = v[i]
  v[i] = v[j]
  v[j] = tmp
end

local function permute(n)
  count = count + 1
  if n ~= 0 then
    local n1 = n - 1
    permute(n1)
    for i = n1, 0, -1 do
      swap(n1, i)
      permute(n1)
      swap(n1, i)
    end
  end
end

local total, weight = 0, 0
for _ = 1, ROUNDS do
  count = 0
  v = { [0] = 0, 0, 0, 0, 0, 0 }
  for i = 0, 5 do v[i] = i + 1 end
  permute(6)
  total = total + count
  for i = 0, 5 do weight = weight + v[i] * (i + 1) end
end
print("permutations per round", count)
print("total", total)
print("array checksum", weight)
