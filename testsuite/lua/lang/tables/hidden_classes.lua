-- Tables keep string keys in named slots described by a shape (hidden class), shared by tables
-- that gained the same keys in the same order, and become dictionaries past 64 string keys.
-- These checks cross every boundary of that design: transitions, shapes shared and not,
-- nil-valued slots, the switch to a dictionary under a running traversal and under cached
-- instructions, weak values in named slots, shapes dropped by the collector while caches
-- still remember them, and one method-call site seeing many classes.
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  return table.concat(ks, ",")
end

-- Same keys, different orders and constructors: each lookup site sees every layout.
local function getters(t) return t.a, t.b, t.c end
local layouts = {
  { a = 1, b = 2, c = 3 }, { c = 3, b = 2, a = 1 },
  (function() local t = {} t.b = 2 t.a = 1 t.c = 3 return t end)(),
  (function() local t = { 10, 20 } t.a = 1 t.c = 3 t.b = 2 return t end)(),
}
for round = 1, 3 do
  for i, t in ipairs(layouts) do
    local a, b, c = getters(t)
    io.write(a + b * 10 + c * 100, round == 3 and i == 4 and "\n" or " ")
  end
end

-- A key set to nil keeps its slot: lookups, traversal, re-adding and __newindex all agree.
local seen = {}
local t = setmetatable({ x = 1, y = 2, z = 3 }, { __newindex = function(tt, k, v) seen[#seen + 1] = k rawset(tt, k, v) end })
t.y = nil
print(t.x, t.y, t.z, sorted_keys(t))
t.y = 20                  -- absent (nil): __newindex runs
t.y = 21                  -- present: it does not
print(t.y, table.concat(seen, ","), sorted_keys(t))

-- Clearing every field during a traversal (allowed), then traversal of a cleared table.
local obj = { p = 1, q = 2, r = 3, s = 4, [1] = "one", [2.5] = "frac" }
local n = 0
for k in pairs(obj) do obj[k] = nil n = n + 1 end
print(n, next(obj))

-- Growing past the shape limit turns a table into a dictionary, while one instruction keeps
-- reading a field and another keeps writing one.
local big = { keep = "k" }
local function read_keep(tt) return tt.keep end
local function write_w(tt, v) tt.w = v end
for i = 1, 150 do
  big["f" .. i] = i
  write_w(big, i)
  if read_keep(big) ~= "k" or big.w ~= i then print("wrong at", i) end
end
local count, sum = 0, 0
for k, v in pairs(big) do count = count + 1 if type(v) == "number" then sum = sum + v end end
print(count, sum, big.f1, big.f150, big.w)
for i = 1, 150, 2 do big["f" .. i] = nil end
count = 0
for k, v in pairs(big) do count = count + 1 end
print(count, big.f2, big.f3)

-- rawget/rawset, next from a named key, and a key not in the table.
local r = { alpha = 1, beta = 2 }
rawset(r, "gamma", 3)
print(rawget(r, "gamma"), rawget(r, "delta"), sorted_keys(r))
print(pcall(next, r, "delta"))

-- Weak values in named slots: collected objects leave nil, strings and live ones stay.
local weak = setmetatable({}, { __mode = "v" })
local keepalive = {}
weak.dead = {}
weak.alive = keepalive
weak.str = "text"
weak.num = 42
collectgarbage()
collectgarbage()
print(weak.dead, weak.alive == keepalive, weak.str, weak.num, sorted_keys(weak))

-- Shapes of dead tables are collected while instructions still remember them: a new table
-- built alike must still be read right.
local function make(i) local o = {} o["u" .. (i % 7)] = i o.v = -i return o end
local function read_v(o) return o.v end
local total = 0
for i = 1, 2000 do
  total = total + read_v(make(i))
  if i % 500 == 0 then collectgarbage() end
end
print(total)

-- One method-call site over many classes (each a metatable __index), plus an instance field
-- that shadows a method, and string methods through the same site.
local classes = {}
for i = 1, 6 do
  local C = {}
  C.__index = C
  function C.name(self) return "C" .. i .. ":" .. self.id end
  classes[i] = C
end
local objs = {}
for i = 1, 12 do objs[i] = setmetatable({ id = i }, classes[(i - 1) % 6 + 1]) end
objs[5].name = function(self) return "own:" .. self.id end
local names = {}
for round = 1, 2 do
  for i = 1, 12 do names[#names + 1] = objs[i]:name() end
end
print(table.concat(names, " "))
local function upper_of(x) return x:upper() end
print(upper_of("abc"), upper_of("xyz"))

-- Method tables with more keys than a linear search covers.
local Wide = {}
Wide.__index = Wide
for i = 1, 30 do Wide["m" .. i] = function(self) return i * self.k end end
local w = setmetatable({ k = 2 }, Wide)
print(w:m1(), w:m17(), w:m30(), w.m31)

-- t[k] with string keys that vary at one instruction: a cached shape alone does not say which
-- key its slot holds.
local rec = { a = 1, b = 2, c = 3 }
local function get(tt, k) return tt[k] end
local function set(tt, k, v) tt[k] = v end
local acc = {}
for round = 1, 2 do
  for _, k in ipairs({ "a", "b", "c", "d", "a", "c" }) do acc[#acc + 1] = tostring(get(rec, k)) end
  for _, k in ipairs({ "b", "a", "e", "c" }) do set(rec, k, round * 10 + #k) end
end
print(table.concat(acc, " "), rec.a, rec.b, rec.c, rec.e, sorted_keys(rec))

-- One field-read site sees tables and other values: an entry a table filled must never answer
-- for a string, a number or a function (the cache key is in every object's header).
local function field_len(v) return v.len end
for round = 1, 2 do
  print(field_len({ len = 1 }), type(field_len("abc")), pcall(field_len, 42))
  print(pcall(field_len, print))
end

-- New fields on objects with a metatable: added in place while the metatable has no
-- __newindex, through it as soon as it has one (the same instruction, the same shapes).
local Meta = { __index = function() return "inherited" end }
local function add_fields(o, v) o.first = v; o.second = v + 1 end
local objs2 = {}
for i = 1, 4 do
  if i == 3 then Meta.__newindex = function(t, k, v) rawset(t, k, v * 10) end end
  objs2[i] = setmetatable({}, Meta)
  add_fields(objs2[i], i)
end
for i = 1, 4 do io.write(objs2[i].first, " ", objs2[i].second, " ", objs2[i].third, i == 4 and "\n" or " | ") end
