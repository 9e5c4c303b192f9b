-- `t[#t + 1] = v` is done in place by the semantics when nothing else could happen: each
-- condition of that fast path, and what the runtime does when one fails (a hole at the end, a
-- hash part, a metatable with or without __newindex, a nil value, a key that is not the next
-- integer), checked by the table's contents and its length afterwards.
local function dump(t, n)
  local parts = {}
  for i = 1, n do parts[i] = tostring(t[i]) end
  return #t .. ": " .. table.concat(parts, ",")
end

local a = {}
for i = 1, 100 do a[i] = i * 2 end
print(dump(a, 5), a[100], #a)

local holes = {1, 2, nil}
holes[3] = 3 holes[4] = 4
print(dump(holes, 5))
local trailing = {1, 2}
trailing[2] = nil
trailing[3] = 3            -- after a nil at the end: 5.1 puts it in the hash part
print(#trailing == 1 or #trailing == 3, trailing[3])

local mixed = {x = 1}
for i = 1, 10 do mixed[i] = i end
print(dump(mixed, 10), mixed.x)

local later = {}
later[3] = "c" later[2] = "b" later[1] = "a" later[4] = "d"
print(dump(later, 4))

local seen = {}
local guarded = setmetatable({}, {__newindex = function(t, k, v) seen[#seen + 1] = k rawset(t, k, v * 10) end})
for i = 1, 5 do guarded[i] = i end
print(dump(guarded, 5), table.concat(seen, ","))
local plain_mt = setmetatable({}, {})
for i = 1, 5 do plain_mt[i] = i end
print(dump(plain_mt, 5))

local nils = {}
nils[1] = nil nils[1] = 1 nils[2] = nil nils[2] = 2
print(dump(nils, 3))

local frac = {1}
frac[2.5] = "x" frac[2] = 2 frac[3.0] = 3
print(dump(frac, 3), frac[2.5])

local grown = {}
for i = 1, 1000 do grown[#grown + 1] = i end
local sum = 0
for i = 1, #grown do sum = sum + grown[i] end
print(#grown, sum)

-- Appends while the collector is marking the table in pieces.
collectgarbage("setpause", 100)
collectgarbage("setstepmul", 110)
local big = {}
for i = 1, 20000 do big[i] = {i} end
for round = 1, 3 do
  for i = 1, 2000 do big[#big + 1] = {round, i} end
  collectgarbage("step", 1)
end
local ok = true
for i = 1, 20000 do if big[i][1] ~= i then ok = false end end
for i = 20001, #big do if type(big[i]) ~= "table" then ok = false end end
print(#big, ok)
