-- Conway's game of life on a wrapped (toroidal) grid of rows of 0/1 numbers, seeded by an
-- LCG; neighbour counting with modular indexing, two grids swapped each generation.
local W, H = 128, 96
local GENERATIONS = 600
local REPORT_EVERY = 50

local seed = 12345
local function random()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed
end

local cur, nxt = {}, {}
for y = 1, H do
  local row, row2 = {}, {}
  for x = 1, W do
    row[x] = (random() % 100 < 35) and 1 or 0
    row2[x] = 0
  end
  cur[y], nxt[y] = row, row2
end

-- a glider in one corner so the pattern does not die out too quickly
cur[2][3], cur[3][4], cur[4][2], cur[4][3], cur[4][4] = 1, 1, 1, 1, 1

local function population(g)
  local n = 0
  for y = 1, H do
    local row = g[y]
    for x = 1, W do n = n + row[x] end
  end
  return n
end

local function step(src, dst)
  for y = 1, H do
    local up = src[(y - 2) % H + 1]
    local row = src[y]
    local down = src[y % H + 1]
    local out = dst[y]
    for x = 1, W do
      local l = (x - 2) % W + 1
      local r = x % W + 1
      local n = up[l] + up[x] + up[r] + row[l] + row[r] + down[l] + down[x] + down[r]
      if n == 3 or (n == 2 and row[x] == 1) then out[x] = 1 else out[x] = 0 end
    end
  end
end

print("generation 0", population(cur))
for g = 1, GENERATIONS do
  step(cur, nxt)
  cur, nxt = nxt, cur
  if g % REPORT_EVERY == 0 then print("generation " .. g, population(cur)) end
end
local hash = 0
for y = 1, H do
  local row = cur[y]
  for x = 1, W do hash = (hash * 2 + row[x]) % 1000000007 end
end
print("final grid hash", hash)
