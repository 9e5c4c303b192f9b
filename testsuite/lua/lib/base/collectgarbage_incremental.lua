-- Stores of every kind into objects while a collection cycle is under way (the incremental
-- collector marks between the program's steps; a store into an object it traced already
-- must not lose the value stored): table array, hash and named slots, new keys, metatables,
-- environments, closed upvalues, debug.setupvalue, rawset, table.insert and table.sort,
-- values parked in coroutines and weak tables, and a long array part (traced a piece at a
-- time) rewritten while it is traced. Every value is checked at the end.
collectgarbage("setpause", 100)
collectgarbage("setstepmul", 110)

local function make(i) return {i, tostring(i) .. "s"} end
local function check(t, i) assert(t[1] == i and t[2] == tostring(i) .. "s", "value " .. i .. " survived") end

local big = {}
for i = 1, 4500 do big[i] = make(i) end
local hash, named, mts, envs = {}, {}, {}, {}
local up = make(0)
local function get_up() return up end
local co = coroutine.create(function(v)
  while true do v = coroutine.yield(v) end
end)
local weak = setmetatable({}, {__mode = "v"})
local list = {}

for round = 1, 6 do
  for i = 1, 400 do
    local garbage = {i, {}}
    local k = (round * 7919 + i * 31) % 4500 + 1
    big[k] = make(k)                                   -- array part, during its traversal
    hash["k" .. (i % 300)] = make(i % 300)             -- hash part, new and old keys
    named.x, named.y = make(1), make(2)                -- named slots
    if i % 50 == 0 then
      rawset(hash, i % 300 + 1000, make(i % 300 + 1000))
      setmetatable(mts, {tag = make(round)})
      setfenv(get_up, {marker = make(round)})
      up = make(round * 1000 + i)                        -- closed upvalue
      debug.setupvalue(get_up, 1, make(round * 1000 + i))
      table.insert(list, make(#list + 1))
      local _, parked = coroutine.resume(co, make(i))
      check(parked, i)
      weak[1] = big[k]
    end
  end
end

for i = 1, #big do check(big[i], i) end
for i = 0, 299 do check(hash["k" .. i], i) end
for i = 1000, 1299 do if hash[i] then check(hash[i], i) end end
check(named.x, 1); check(named.y, 2)
check(getmetatable(mts).tag, 6)
check(getfenv(get_up).marker, 6)
assert(get_up()[1] == up[1])
for i = 1, #list do check(list[i], i) end
table.sort(list, function(a, b) return a[1] > b[1] end)
for i = 1, #list do check(list[i], #list + 1 - i) end
print(#big, #list, collectgarbage("count") > 0)
