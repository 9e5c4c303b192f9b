-- Field reads (t.name) through chains of __index tables: found at each depth, nil at the end
-- of chains of every length, chains that end in an __index function or a non-table value,
-- chains changed between reads, cycles and 5.1's limit of 100 steps ("loop in gettable").
local function chain(n, last)
  -- n tables, each the __index of the one before; the last one holds `last`.
  local tables = {}
  for i = 1, n do tables[i] = { ["at" .. i] = i } end
  for i = 1, n - 1 do setmetatable(tables[i], { __index = tables[i + 1] }) end
  for k, v in pairs(last or {}) do tables[n][k] = v end
  return tables
end

local out = {}
for _, n in ipairs({ 1, 2, 3, 4, 5, 8 }) do
  local t = chain(n, { deep = "deep" .. n })
  local first = t[1]
  out[#out + 1] = table.concat({ n, tostring(first.at1), tostring(first.at2), tostring(first.at3),
    tostring(first.deep), tostring(first.missing), tostring(rawget(first, "deep")) }, " ")
end
print(table.concat(out, "\n"))

-- A class hierarchy: instance fields, class fields, parent fields, nil fields, a default
-- function at the root, reads before and after fields are added and removed.
local Base = { kind = "base", size = 1 }
Base.__index = Base
setmetatable(Base, { __index = function(_, k) return "default:" .. k end })
local Mid = setmetatable({ kind = "mid" }, { __index = Base })
Mid.__index = Mid
local Leaf = setmetatable({}, { __index = Mid })
Leaf.__index = Leaf
local obj = setmetatable({ own = true }, Leaf)
local function read(o)
  return table.concat({ tostring(o.own), o.kind, tostring(o.size), o.color }, ",")
end
print(read(obj))
Leaf.kind = "leaf"
Mid.size = 2
print(read(obj))
obj.kind = "mine"
Leaf.kind = nil
print(read(obj))
obj.kind = nil
Mid.kind = nil
print(read(obj))

-- __index that is not a table or a function: the error (after the walk's tables).
local odd = setmetatable({}, { __index = setmetatable({}, { __index = 42 }) })
print(pcall(function() return odd.field end))
local bad = setmetatable({}, { __index = true })
print(pcall(function() return bad.field end))
print(pcall(function() local n = nil; return n.field end))
print(pcall(function() local s = "str"; return s.len == string.len end))

-- Chains of 99, 100 and 101 tables (5.1 allows 100 steps), and a cycle.
for _, n in ipairs({ 99, 100, 101, 102 }) do
  local t = chain(n, { far = "far" })
  print(n, pcall(function() return t[1].far end))
  print(n, pcall(function() return t[1].nowhere end))
end
local a, b = {}, {}
setmetatable(a, { __index = b })
setmetatable(b, { __index = a })
print(pcall(function() return a.cycle end))

-- One instruction over objects of different classes and depths in turn.
local total = 0
local objects = {}
for i = 1, 30 do
  local depth = i % 4 + 1
  local t = chain(depth, { v = i })
  objects[i] = t[1]
end
for round = 1, 3 do
  for _, o in ipairs(objects) do total = total + o.v + (o.at1 or 0) + (o.none or 0) end
end
print(total)
