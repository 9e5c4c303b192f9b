-- t[k] with string keys that vary at run time, found through the shape's index (every shape
-- size up to the dictionary switch) or the hash part: reads and writes of present and absent
-- keys, nil values, keys removed and added again, keys built by concatenation and string.sub,
-- with and without __index/__newindex, on one instruction that sees many tables and keys.
local function key(i) return "k" .. i end
local sizes = { 0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 300 }
local tables = {}
for _, n in ipairs(sizes) do
  local t = {}
  for i = 1, n do t[key(i)] = i * 10 end
  tables[#tables + 1] = t
end

local function get(t, k) return t[k] end
local function set(t, k, v) t[k] = v end

local out = {}
for ti, t in ipairs(tables) do
  local n = sizes[ti]
  local sum, missing = 0, 0
  for i = 0, n + 3 do
    local v = get(t, key(i))
    if v then sum = sum + v else missing = missing + 1 end
  end
  -- Overwrite every present key, then read back through the same instruction.
  for i = 1, n do set(t, key(i), i) end
  local back = 0
  for i = 1, n do back = back + get(t, key(i)) end
  -- Remove every third key, read, and add them again (nil slots stay in the shape).
  for i = 3, n, 3 do set(t, key(i), nil) end
  local after = 0
  for i = 1, n do after = after + (get(t, key(i)) or -1) end
  for i = 3, n, 3 do set(t, key(i), i * 2) end
  local again = 0
  for i = 1, n do again = again + get(t, key(i)) end
  out[#out + 1] = table.concat({ n, sum, missing, back, after, again }, " ")
end
print(table.concat(out, "\n"))

-- Keys built from pieces (string.sub, concatenation) are the same interned strings.
local words = "alpha beta gamma delta alpha beta alpha epsilon"
local counts = {}
for w in words:gmatch("%a+") do counts[w] = (counts[w] or 0) + 1 end
local seq = "ACGTACGTTGCA"
local kmers = {}
for i = 1, #seq - 1 do
  local k = seq:sub(i, i + 1)
  kmers[k] = (kmers[k] or 0) + 1
end
local function sorted(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  for i, k in ipairs(ks) do ks[i] = k .. "=" .. t[k] end
  return table.concat(ks, ",")
end
print(sorted(counts), sorted(kmers), kmers["A" .. "C"], counts[("xalphax"):sub(2, 6)])

-- Metatables: absent keys go to __index, new keys to __newindex; present keys are raw.
local log = {}
local base = { inherited = "from base" }
local proxy = setmetatable({ own = 1 }, {
  __index = function(_, k) log[#log + 1] = "index " .. k; return base[k] end,
  __newindex = function(t, k, v) log[#log + 1] = "newindex " .. k; rawset(t, k, v) end,
})
for _, k in ipairs({ "own", "inherited", "nothing", "own" }) do log[#log + 1] = tostring(get(proxy, k)) end
for _, k in ipairs({ "own", "fresh", "fresh" }) do set(proxy, k, k .. "!") end
set(proxy, "own", nil)
log[#log + 1] = tostring(get(proxy, "own"))
set(proxy, "own", 5)
local chain = setmetatable({}, { __index = setmetatable({ mid = "mid" }, { __index = base }) })
log[#log + 1] = get(chain, "mid") .. "/" .. get(chain, "inherited") .. "/" .. tostring(get(chain, "none"))
print(table.concat(log, "; "))

-- One instruction over many shapes in turn, with keys present in some and not others.
local shapes = {}
for i = 1, 40 do
  local t = {}
  for j = 1, i % 12 do t["f" .. j] = j + i end
  shapes[i] = t
end
local total = 0
for round = 1, 3 do
  for i, t in ipairs(shapes) do
    for j = 1, 12 do
      local v = get(t, "f" .. j)
      if v then total = total + v * round end
    end
  end
end
print(total)
