-- One `obj:name()` site over the instances of many classes: more receiver shapes and more
-- classes holding the method than the site's caches have entries, so entries take turns,
-- a shape's key filter answers "absent" for instances and subclasses, and every answer must
-- still be the one a plain lookup gives, as objects and classes change under the caches.
local function class(parent, name)
  local c = { name = name }
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  return c
end

local Base = class(nil, "Base")
function Base:who() return "Base:" .. self.tag end
function Base:depth() return 0 end
local A = class(Base, "A")
function A:depth() return 1 end
local B = class(A, "B")
function B:who() return "B:" .. self.tag end
local C = class(B, "C")
function C:depth() return 3 end
local D = class(Base, "D")
function D:who() return "D:" .. self.tag end
local E = class(D, "E")
function E:depth() return 5 end
local F = class(E, "F")
local G = class(nil, "G")
function G:who() return "G" end
function G:depth() return 7 end

-- Instances of several shapes (different fields), of every class.
local objects = {}
local classes = { Base, A, B, C, D, E, F, G }
for i = 1, 48 do
  local o = { tag = i }
  if i % 2 == 0 then o.x = i end
  if i % 3 == 0 then o.y = i end
  if i % 5 == 0 then o.z = i end
  objects[i] = setmetatable(o, classes[i % #classes + 1])
end

local function sweep(label)
  local out = {}
  for i = 1, #objects do
    local o = objects[i]
    out[#out + 1] = o:who() .. "/" .. o:depth()
  end
  print(label, table.concat(out, " "))
end

for round = 1, 3 do sweep("round " .. round) end

-- A class gains a method its subclasses inherit (a new key: a new shape and filter).
function A:who() return "A:" .. self.tag end
sweep("A gains who")
-- An instance holds the method itself, then loses it again.
objects[7].depth = function() return "own" end
objects[8].who = function() return "own who" end
sweep("own methods")
objects[7].depth = nil
objects[8].who = nil
sweep("own methods removed")
-- A method redefined in place (same key, same slot), and one set to nil (falls through).
function Base:depth() return "base!" end
B.who = nil
sweep("redefined")
-- A class turned into a dictionary (many keys: no shape, no key filter).
for k = 1, 80 do D["extra" .. k] = k end
sweep("dictionary class")
-- A metatable swapped under an instance of an already-cached shape.
setmetatable(objects[1], G)
setmetatable(objects[2], C)
sweep("metatables swapped")
-- A missing method: the error names it, at a site whose caches are full.
local ok, err = pcall(function()
  for i = 1, #objects do objects[i]:missing() end
end)
print("missing", ok, err)
-- Strings and non-tables through the same site.
local function len_of(x) return x:len() end
print("strings", len_of("abc"), len_of(""), len_of(("x"):rep(10)))
print("number", pcall(len_of, 5))
