-- Field caches with two entries (GetField, SetField, GetMethod's receiver cache): a site that
-- sees two hidden classes keeps both, a third evicts the one that hit least recently, and a
-- hit of the second entry moves it first (quickening the opcode to its kind). Stores also
-- cache that a shaped table lacks the key, so a constructor's field stores add in line. Every
-- case below changes what such a cache assumed; the site must still answer right.

local function get_x(o) return o.x end
local function set_x(o, v) o.x = v end

-- Shapes that differ in where x lives (inline in a constructor's slots, or added later, so
-- out of line) and whether there is a metatable: four kinds at one site, in turns.
local plain_inline = {x = 1, y = 2}
local plain_added = {}
plain_added.y = 2
plain_added.x = 3
local meta_inline = setmetatable({x = 5, z = 0}, {})
local meta_added = setmetatable({}, {})
meta_added.w = 0
meta_added.x = 7
local objects = {plain_inline, plain_added, meta_inline, meta_added}
local sum = 0
for round = 1, 30 do
  -- Two classes in turns, then three, then all four: every fill and promotion order.
  local width = round <= 10 and 2 or round <= 20 and 3 or 4
  for i = 1, width do
    sum = sum + get_x(objects[i])
    set_x(objects[i], get_x(objects[i]) + 1)
  end
end
print("turns", sum, plain_inline.x, plain_added.x, meta_inline.x, meta_added.x)

-- A rare class at a site that mostly sees one: the common one must come back to the first
-- entry (and its answers stay right either way).
local common = {x = 10}
local rare = {y = 0, x = 20}
local got = {}
for i = 1, 40 do
  local o = (i % 13 == 0) and rare or common
  got[#got + 1] = get_x(o)
end
print("rare", table.concat(got, " "))

-- A nil field next to a present one, under a metatable whose __index answers nil fields.
local defaults = {__index = function(_, k) return "default " .. k end}
local with_nil = setmetatable({x = false, y = 1}, defaults)
local without = setmetatable({y = 1}, defaults)
for i = 1, 6 do
  local o = i % 2 == 0 and with_nil or without
  print("nil or absent", i, tostring(get_x(o)))
end
with_nil.x = nil
print("now nil", get_x(with_nil), get_x(without))

-- Construction: a store of a key the shape lacks is cached as such and adds in line. The
-- metatable's __newindex, present, absent, added or removed between objects, must be asked
-- whenever it exists.
local function make(mt, a, b)
  local o = setmetatable({}, mt)
  o.a = a
  o.b = b
  return o
end
local log = {}
local mt = {}
local first = make(mt, 1, 2)
local second = make(mt, 3, 4)
mt.__newindex = function(t, k, v) log[#log + 1] = k .. "=" .. tostring(v); rawset(t, k, v) end
local third = make(mt, 5, 6)
mt.__newindex = nil
local fourth = make(mt, 7, 8)
mt.__newindex = {}
local fifth = make(mt, 9, 10)
print("constructed", first.a, first.b, second.a, second.b, third.a, third.b, fourth.a, fourth.b, rawget(fifth, "a"), rawget(fifth, "b"))
print("newindex log", table.concat(log, " "))
print("newindex table", mt.__newindex.a, mt.__newindex.b)

-- A nil stored into an absent key adds nothing; the next store adds it.
local function store(o, v) o.k = v end
local n1, n2 = {}, {}
store(n1, nil)
store(n2, nil)
store(n2, "set")
local keys = 0
for _ in pairs(n1) do keys = keys + 1 end
print("nil stores", keys, n2.k)

-- An absent key cached for one shape; then the table gains the key another way (rawset, a
-- by-value store): its shape changes, so the site must overwrite, not add again.
local q = {}
store(q, 1)
local r = {}
rawset(r, "k", "raw")
store(r, 2)
local s = {}
s["k"] = "by value"
store(s, 3)
local count = 0
for k in pairs(s) do count = count + 1 end
print("gained", q.k, r.k, s.k, count)

-- Methods: found in the class, inherited once, twice, three times (a chain longer than what
-- the handler walks in line), with classes changed under the caches.
local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, parent) end
  return c
end
local Base = class()
function Base:name() return "base" end
function Base:who() return self:name() .. "/" .. self.tag end
local Mid = class(Base)
function Mid:name() return "mid" end
local Leaf = class(Mid)
local Deep = class(Leaf)
local Deeper = class(Deep)
local instances = {
  setmetatable({tag = "b"}, Base),
  setmetatable({tag = "m"}, Mid),
  setmetatable({tag = "l"}, Leaf),
  setmetatable({tag = "d"}, Deep),
  setmetatable({tag = "e", extra = 1}, Deeper),
}
for round = 1, 3 do
  local out = {}
  for _, o in ipairs(instances) do out[#out + 1] = o:who() end
  print("methods", round, table.concat(out, " "))
  if round == 1 then
    function Leaf:name() return "leaf" end
  elseif round == 2 then
    Mid.name = nil
    Leaf.name = nil
  end
end
-- An instance's own field shadows its class's method, and stops doing so.
local own = setmetatable({tag = "o"}, Leaf)
print("own", own:who())
own.who = function() return "own who" end
print("own", own:who())
own.who = nil
print("own", own:who())
