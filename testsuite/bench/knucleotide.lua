-- k-nucleotide: count every k-mer of a generated DNA sequence with string.sub and a table,
-- then report frequencies sorted by count and the counts of a few longer sequences.
local N = 500000
local IM, IA, IC = 139968, 3877, 29573
local last = 42
local function random()
  last = (last * IA + IC) % IM
  return last / IM
end
local bases, cumulative = { "a", "c", "g", "t" }, { 0.3, 0.5, 0.7, 1.0 }
local parts = {}
for i = 1, N do
  local r = random()
  local j = 1
  while r >= cumulative[j] do j = j + 1 end
  parts[i] = bases[j]
end
local seq = table.concat(parts):upper()

local function frequencies(k)
  local counts = {}
  for i = 1, #seq - k + 1 do
    local frag = seq:sub(i, i + k - 1)
    counts[frag] = (counts[frag] or 0) + 1
  end
  return counts
end

for k = 1, 2 do
  local counts, list = frequencies(k), {}
  for frag, n in pairs(counts) do list[#list + 1] = { frag, n } end
  table.sort(list, function(a, b)
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] < b[1]
  end)
  local total = #seq - k + 1
  for _, e in ipairs(list) do print(string.format("%s %.3f", e[1], 100 * e[2] / total)) end
  print()
end
for _, frag in ipairs({ "GGT", "GGTA", "GGTATT", "GGTATTTTAATT", "GGTATTTTAATTTATAGT" }) do
  local counts = frequencies(#frag)
  print((counts[frag] or 0) .. "\t" .. frag)
end
