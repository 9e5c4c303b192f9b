-- Stores into a field that holds nil, of objects with metatables: `__newindex` runs when the
-- metatable has it (also one added after the site has run), the store happens when it does
-- not (a class's metatable with only `__index`), and a field set to nil again behaves the same.
local Node = {}
Node.__index = Node
local function node(v) return setmetatable({ value = v, next = false }, Node) end
local head = node(1)
local tail = head
for i = 2, 6 do
  local n = node(i)
  tail.next = n
  n.next = nil
  tail = n
end
local seen = {}
local n = head
while n do seen[#seen + 1] = n.value; n = n.next end
print(table.concat(seen, " "))

local log = {}
local Guarded = {}
Guarded.__index = Guarded
local function set_all(objs, key, v)
  for i = 1, #objs do objs[i][key] = v end
end
local objs = {}
for i = 1, 4 do objs[i] = setmetatable({ a = i, b = i }, Guarded) end
set_all(objs, "a", nil)
set_all(objs, "a", 10)
print(objs[1].a, objs[4].a, rawget(objs[2], "a"))
-- From now on the metatable has `__newindex`: the same site, on fields holding nil, calls it.
Guarded.__newindex = function(t, k, v) log[#log + 1] = k .. "=" .. tostring(v); rawset(t, k, v) end
set_all(objs, "a", nil)
set_all(objs, "a", 20)
set_all(objs, "b", 30)
print(table.concat(log, ","), objs[1].a, objs[3].b)
-- `__newindex` a table: the value goes there, the object keeps nil.
local store = {}
Guarded.__newindex = store
set_all(objs, "a", nil)
set_all(objs, "a", 40)
print(rawget(objs[1], "a"), store.a)
-- Removed again: stores land in the objects.
Guarded.__newindex = nil
set_all(objs, "a", 50)
print(objs[2].a, store.a)
-- A metatable that is also its own `__index` with the field: reads go there while it is nil.
local Base = { shared = "base" }
Base.__index = Base
local o = setmetatable({ shared = "own" }, Base)
o.shared = nil
print(o.shared)
o.shared = "again"
print(o.shared, Base.shared)
