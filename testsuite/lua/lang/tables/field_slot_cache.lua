-- The string-keyed table bytecodes (t.name, t.name = v, globals) remember where they found
-- their key last time. These loops make that memory wrong in every way: one instruction
-- sees tables of different shapes, keys removed and re-added, hash parts rebuilt between two
-- executions, metatables appearing, and environments swapped under a global access.
local function get_x(t) return t.x end
local function set_x(t, v) t.x = v end

-- Different layouts through one GetField / SetField.
local shapes = {
  { x = 1 }, { a = 1, x = 2 }, { a = 1, b = 2, c = 3, x = 4 }, { x = 5, y = 6, z = 7 },
  setmetatable({}, { __index = { x = 8 } }), {},
}
local out = {}
for round = 1, 3 do
  for i, t in ipairs(shapes) do out[#out + 1] = tostring(get_x(t)) end
end
print(table.concat(out, " "))

-- Growth between two accesses moves every key to a new slot.
local t = { x = 10 }
for i = 1, 200 do
  t["k" .. i] = i
  if get_x(t) ~= 10 then print("lost x at", i) end
  if i % 50 == 0 then set_x(t, get_x(t)) end
end
print(get_x(t), t.k1, t.k200)

-- Removal and reinsertion: a dead key, then a live one; __newindex sees only absent keys.
local log = {}
local proxy = setmetatable({ x = 1 }, { __newindex = function(tt, k, v) log[#log + 1] = k; rawset(tt, k, v) end,
                                        __index = function(_, k) return "default " .. k end })
for i = 1, 4 do
  set_x(proxy, i)
  print(get_x(proxy))
  proxy.x = nil
  print(get_x(proxy))
end
print(table.concat(log, ","))

-- Globals through one GetGlobal/SetGlobal, across environments.
counter = 0
local function bump() counter = counter + 1; return counter end
local envs = { { counter = 100 }, { counter = -5 }, _G }
for round = 1, 2 do
  for _, e in ipairs(envs) do
    if e ~= _G then setmetatable(e, { __index = _G }) end
    setfenv(bump, e)
    print(bump(), rawget(e, "counter"))
  end
end
print(counter)

-- Many keys colliding on one table, read in varying order through one instruction.
local big = {}
for i = 1, 64 do big["f" .. i] = i end
local function read(tt, k) return tt[k] end
local sum = 0
for i = 64, 1, -3 do sum = sum + read(big, "f" .. i) + big.f1 + big.f64 end
print(sum)

-- A non-table through the same instruction.
print(pcall(get_x, 5))
print(pcall(get_x, "str"))
print(select(2, pcall(set_x, nil, 1)))
