-- Method dispatch through metatables: a class hierarchy three levels deep (Shape -> Polygon
-- -> Rectangle -> Square) where instances find methods one to four __index tables up, super
-- calls through the parent class, and a root __index function for default fields.
local ITERATIONS = 12000

local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  c.super = parent
  return c
end

local defaults = { color = 7, layer = 1 }
local Shape = class(nil)
setmetatable(Shape, { __index = function(_, k) return defaults[k] end })
local next_id = 0
function Shape.init(self)
  next_id = next_id + 1
  self.ident = next_id
  self.hits = 0
  return self
end
function Shape:id() return self.ident end
function Shape:area() return 0 end
function Shape:perimeter() return 0 end
function Shape:sides() return 0 end
function Shape:bump() self.hits = self.hits + 1; return self.hits end
function Shape:weight() return self:area() * 2 + self:perimeter() + self:sides() end
function Shape:kind() return 1 end

local Polygon = class(Shape)
function Polygon.init(self, n, len)
  Shape.init(self)
  self.n, self.len = n, len
  return self
end
function Polygon:sides() return self.n end
function Polygon:side_length() return self.len end
function Polygon:perimeter() return self:sides() * self:side_length() end
function Polygon:kind() return 2 end

local Rectangle = class(Polygon)
function Rectangle.init(self, w, h)
  Polygon.init(self, 4, w)
  self.w, self.h = w, h
  return self
end
function Rectangle:area() return self.w * self.h end
function Rectangle:perimeter() return 2 * (self.w + self.h) end
function Rectangle:kind() return Polygon.kind(self) + 1 end

local Square = class(Rectangle)
function Square.init(self, s)
  Rectangle.init(self, s, s)
  return self
end
function Square:kind() return Rectangle.kind(self) * 10 end
function Square:diagonal_sq() return 2 * self.w * self.w end

local Triangle = class(Polygon)
function Triangle.init(self, len) return Polygon.init(self, 3, len) end
function Triangle:area() return math.floor(self.len * self.len * 433 / 1000) end

local Circle = class(Shape)
function Circle.init(self, r)
  Shape.init(self)
  self.r = r
  return self
end
function Circle:area() return math.floor(self.r * self.r * 355 / 113) end
function Circle:perimeter() return math.floor(self.r * 710 / 113) end
function Circle:kind() return 5 end

local function new(cls, ...) return cls.init(setmetatable({}, cls), ...) end

local shapes = {}
for i = 1, 120 do
  local m = i % 6
  local size = i % 17 + 1
  if m == 0 then shapes[i] = new(Square, size)
  elseif m == 1 then shapes[i] = new(Rectangle, size, size + 2)
  elseif m == 2 then shapes[i] = new(Triangle, size)
  elseif m == 3 then shapes[i] = new(Circle, size)
  elseif m == 4 then shapes[i] = new(Polygon, 5 + i % 4, size)
  else shapes[i] = new(Shape) end
end

local total = 0
for it = 1, ITERATIONS do
  local s = 0
  for i = 1, #shapes do
    local sh = shapes[i]
    s = s + sh:area() + sh:perimeter() + sh:sides() + sh:kind() + sh:weight()
    if sh:id() % 8 == it % 8 then sh:bump() end
    s = s + sh.color + sh.layer
  end
  total = (total + s) % 1000000007
end
print("total", total)

local hits, kinds = 0, {}
for i = 1, #shapes do
  hits = hits + shapes[i].hits
  local k = shapes[i]:kind()
  kinds[k] = (kinds[k] or 0) + 1
end
print("hits", hits)
local keys = {}
for k in pairs(kinds) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do print("kind " .. k, kinds[k]) end
print("square diagonal^2", shapes[6]:diagonal_sq(), "super chain", Square.super == Rectangle, Rectangle.super.super == Shape)
print("missing method", pcall(function() return shapes[1]:diagonal_sq() end) == false)
