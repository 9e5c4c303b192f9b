-- Towers of Hanoi (are-we-fast-yet "Towers"): disks are tables linked into three stacks,
-- moved recursively with a size check on every push; calls, field access, small tables.
local ROUNDS = 90
local DISKS = 16

local piles, moves

local function push_disk(disk, pile)
  local top = piles[pile]
  if top ~= nil and disk.size >= top.size then
    error("cannot put a big disk on a smaller one")
  end
  disk.next = top
  piles[pile] = disk
end

local function pop_disk_from(pile)
  local top = piles[pile]
  if top == nil then error("attempting to remove a disk from an empty pile") end
  piles[pile] = top.next
  top.next = nil
  return top
end

local function move_top_disk(from, to)
  push_disk(pop_disk_from(from), to)
  moves = moves + 1
end

local function build_tower_at(pile, disks)
  for i = disks, 0, -1 do push_disk({ size = i, next = nil }, pile) end
end

local function move_disks(disks, from, to)
  if disks == 1 then
    move_top_disk(from, to)
  else
    local other = 3 - from - to
    move_disks(disks - 1, from, other)
    move_top_disk(from, to)
    move_disks(disks - 1, other, to)
  end
end

local total = 0
for r = 1, ROUNDS do
  piles = {}
  moves = 0
  build_tower_at(0, DISKS)
  move_disks(DISKS, 0, 1)
  total = total + moves
end
local sizes = {}
local d = piles[1]
while d ~= nil do sizes[#sizes + 1] = d.size; d = d.next end
print("moves per round", moves)
print("total moves", total)
print("pile 1 top to bottom", table.concat(sizes, " "))
print("pile 0 holds only disk " .. piles[0].size, piles[0].next == nil, "pile 2 empty", piles[2] == nil)
