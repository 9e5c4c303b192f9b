-- Fasta-style sequence generation: string building, table lookups, an LCG; checksummed output.
local IM, IA, IC = 139968, 3877, 29573
local last = 42
local function random(max)
  last = (last * IA + IC) % IM
  return max * last / IM
end
local alu = "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGGGAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGACCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAATACAAAAATTAGCCGGG"
local iub = { { "a", 0.27 }, { "c", 0.12 }, { "g", 0.12 }, { "t", 0.27 }, { "B", 0.02 }, { "D", 0.02 }, { "H", 0.02 }, { "K", 0.02 }, { "M", 0.02 }, { "N", 0.02 }, { "R", 0.02 }, { "S", 0.02 }, { "V", 0.02 }, { "W", 0.02 }, { "Y", 0.02 } }
local checksum = 0
local function emit(line)
  for i = 1, #line do checksum = (checksum * 31 + line:byte(i)) % 1000000007 end
end
local function repeat_fasta(s, n)
  local len, pos = #s, 1
  while n > 0 do
    local line = {}
    for i = 1, math.min(60, n) do
      line[i] = s:sub(pos, pos)
      pos = pos + 1
      if pos > len then pos = 1 end
    end
    emit(table.concat(line))
    n = n - 60
  end
end
local function random_fasta(genes, n)
  local cum = 0
  for _, g in ipairs(genes) do cum = cum + g[2]; g[3] = cum end
  while n > 0 do
    local line = {}
    for i = 1, math.min(60, n) do
      local r = random(1)
      for _, g in ipairs(genes) do
        if r < g[3] then line[i] = g[1] break end
      end
      line[i] = line[i] or genes[#genes][1]
    end
    emit(table.concat(line))
    n = n - 60
  end
end
local N = 700000
repeat_fasta(alu, N * 2)
random_fasta(iub, N * 3)
print("checksum", checksum)
