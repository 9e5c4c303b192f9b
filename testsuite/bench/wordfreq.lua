-- Word frequencies: build a pseudo-random text (LCG, syllable words, capitals, punctuation,
-- numbers), split it with string.gmatch, count lower-cased words in a table, sort by
-- frequency then word and print the top 20; string.format/lower/upper/rep, table.concat.
local WORDS = 1000000
local VOCAB = 8000
local LINE = 14

local seed = 2024
local function random(n)
  seed = (seed * 16807) % 2147483647
  return seed % n
end

local syllables = { "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "da", "ve", "zu", "qua",
  "sh", "er", "an", "ti", "or", "el", "ba", "gu", "wy", "fo", "xe", "ith" }
local vocab, seen = {}, {}
while #vocab < VOCAB do
  local parts = {}
  for i = 1, 1 + random(4) do parts[i] = syllables[random(#syllables) + 1] end
  local w = table.concat(parts)
  if not seen[w] then seen[w] = true; vocab[#vocab + 1] = w end
end

local punct = { ",", ".", ";", "!", "?", " -", ":" }
local lines, line = {}, {}
for i = 1, WORDS do
  -- skewed choice: low indices are much more common
  local r = random(100000) / 100000
  local w = vocab[math.floor(r * r * r * VOCAB) + 1]
  local style = random(20)
  if style == 0 then w = w:upper()
  elseif style < 4 then w = w:sub(1, 1):upper() .. w:sub(2) end
  if random(9) == 0 then w = w .. punct[random(#punct) + 1] end
  if random(40) == 0 then w = w .. " " .. random(1000) end
  line[#line + 1] = w
  if #line == LINE then
    lines[#lines + 1] = table.concat(line, " ")
    line = {}
  end
end
if #line > 0 then lines[#lines + 1] = table.concat(line, " ") end
local text = table.concat(lines, "\n")

local counts, total = {}, 0
for word in string.gmatch(text, "%a+") do
  word = string.lower(word)
  counts[word] = (counts[word] or 0) + 1
  total = total + 1
end
local numbers = 0
for num in text:gmatch("%d+") do numbers = numbers + tonumber(num) end
local nlines = 0
for _ in text:gmatch("[^\n]+") do nlines = nlines + 1 end

local entries = {}
for word, n in pairs(counts) do entries[#entries + 1] = { word = word, n = n } end
table.sort(entries, function(a, b)
  if a.n ~= b.n then return a.n > b.n end
  return a.word < b.word
end)

print(string.format("%d lines, %d characters, %d words, %d distinct", nlines, #text, total, #entries))
print("sum of numbers", numbers)
print(string.rep("-", 32))
for i = 1, 20 do
  local e = entries[i]
  print(string.format("%2d. %-14s %6d %7.3f%%", i, e.word, e.n, 100 * e.n / total))
end
print(string.rep("-", 32))
local longest = entries[1].word
for _, e in ipairs(entries) do
  if #e.word > #longest or (#e.word == #longest and e.word < longest) then longest = e.word end
end
local rare = {}
for i = #entries, #entries - 4, -1 do rare[#rare + 1] = entries[i].word .. "=" .. entries[i].n end
print("longest word", longest)
print("rarest", table.concat(rare, " "))
