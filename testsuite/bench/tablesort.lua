-- table.sort with and without a comparator over records and strings.
local seed = 7
local function rand(n) seed = (seed * 16807) % 2147483647 return seed % n end
local recs, words = {}, {}
for i = 1, 200000 do
  recs[i] = { key = rand(100000), id = i }
  words[i] = "w" .. rand(1000000)
end
table.sort(recs, function(a, b) if a.key ~= b.key then return a.key < b.key end return a.id < b.id end)
table.sort(words)
local nums = {}
for i = 1, 300000 do nums[i] = rand(1000000) end
table.sort(nums)
print(recs[1].key, recs[#recs].key, words[1], words[#words], nums[1], nums[#nums])
