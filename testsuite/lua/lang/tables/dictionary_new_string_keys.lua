-- New string keys stored into a dictionary (a table past its named slots) by value,
-- `t[k] = v`: the handler inserts where the hash part has room and no metatable could want
-- `__newindex`; growth, nil values, metatables and everything else go to the runtime. Every
-- key built here is a fresh string, so collections run while the inserts do (and under
-- --gc-stress and --gc-verify, at every one).

local function count(t)
  local n, sum = 0, 0
  for _, v in pairs(t) do
    n = n + 1
    if type(v) == "number" then sum = sum + v end
  end
  return n, sum
end

-- A dictionary grown one new key at a time, through many rehashes.
local d = {}
for i = 1, 5000 do d["key" .. i] = i end
print("grown", count(d))
for i = 1, 5000, 7 do assert(d["key" .. i] == i) end
print("missing", d.key0, d["key5001"])

-- Overwrites, then new keys again, in a table whose hash part has room.
for i = 1, 5000, 2 do d["key" .. i] = -i end
for i = 5001, 5100 do d["key" .. i] = i end
print("mixed", count(d))

-- A nil value for a new key adds nothing; nil over an existing key clears it.
d["absent"] = nil
d.key2 = nil
print("nils", count(d), d.absent, d.key2)
d.key2 = 2
print("back", d.key2, count(d))

-- Counting words, the usual dictionary.
local text = {}
for i = 1, 3000 do text[#text + 1] = "w" .. (i * 7919 % 613) end
local counts = {}
for _, w in ipairs(text) do counts[w] = (counts[w] or 0) + 1 end
print("words", count(counts))

-- With a metatable: `__newindex` sees every new key, never an existing one.
local seen = 0
local logged = setmetatable({}, { __newindex = function(t, k, v) seen = seen + 1; rawset(t, k, v) end })
for i = 1, 200 do logged["k" .. i] = i end
for i = 1, 200 do logged["k" .. i] = i * 2 end
print("newindex", seen, count(logged))

-- A metatable with `__index` only: new keys are stored raw.
local base = { inherited = 1 }
local derived = setmetatable({}, { __index = base })
for i = 1, 100 do derived["own" .. i] = i end
print("index only", count(derived), derived.inherited, rawget(derived, "inherited"))

-- Keys of other kinds beside the strings (numbers, booleans, tables) in the same hash part.
local mixed = {}
for i = 1, 100 do mixed["s" .. i] = i end
mixed[1.5] = 1; mixed[true] = 2; mixed[mixed] = 3; mixed[-7] = 4
for i = 101, 200 do mixed["s" .. i] = i end
print("other kinds", count(mixed), mixed[1.5], mixed[true], mixed[mixed], mixed[-7])

-- A weak-keyed dictionary has a metatable: its inserts stay the runtime's.
local weak = setmetatable({}, { __mode = "k" })
for i = 1, 100 do weak["k" .. i] = i end
print("weak", count(weak))

-- Tables as values (the collector must see them through the dictionary after the insert).
local holders = {}
for i = 1, 2000 do holders["h" .. i] = { i } end
collectgarbage()
local total = 0
for _, v in pairs(holders) do total = total + v[1] end
print("held", total)
