-- A small ray tracer: vectors as tables with metatable arithmetic, spheres and a plane with
-- methods, shadows and reflections; prints a checksum of the rendered pixels.
local W, H = 120, 90
local Vec = {}
Vec.__index = Vec
local function vec(x, y, z) return setmetatable({ x = x, y = y, z = z }, Vec) end
Vec.__add = function(a, b) return vec(a.x + b.x, a.y + b.y, a.z + b.z) end
Vec.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y, a.z - b.z) end
Vec.__mul = function(a, s) return vec(a.x * s, a.y * s, a.z * s) end
Vec.__unm = function(a) return vec(-a.x, -a.y, -a.z) end
function Vec:dot(b) return self.x * b.x + self.y * b.y + self.z * b.z end
function Vec:length() return math.sqrt(self:dot(self)) end
function Vec:norm() return self * (1 / self:length()) end
function Vec:hadamard(b) return vec(self.x * b.x, self.y * b.y, self.z * b.z) end

local Sphere = {}
Sphere.__index = Sphere
local function sphere(center, radius, color, reflect)
  return setmetatable({ center = center, radius = radius, color = color, reflect = reflect }, Sphere)
end
function Sphere:intersect(origin, dir)
  local oc = origin - self.center
  local b = oc:dot(dir)
  local c = oc:dot(oc) - self.radius * self.radius
  local disc = b * b - c
  if disc < 0 then return nil end
  local s = math.sqrt(disc)
  local t = -b - s
  if t < 1e-4 then t = -b + s end
  if t < 1e-4 then return nil end
  return t
end
function Sphere:normal(p) return (p - self.center):norm() end

local Plane = {}
Plane.__index = Plane
local function plane(normal, offset, reflect)
  return setmetatable({ n = normal, offset = offset, reflect = reflect }, Plane)
end
function Plane:intersect(origin, dir)
  local denom = self.n:dot(dir)
  if math.abs(denom) < 1e-9 then return nil end
  local t = -(self.n:dot(origin) + self.offset) / denom
  if t < 1e-4 then return nil end
  return t
end
function Plane:normal() return self.n end
Plane.colorAt = function(self, p)
  local check = (math.floor(p.x) + math.floor(p.z)) % 2
  return check == 0 and vec(0.9, 0.9, 0.9) or vec(0.2, 0.2, 0.2)
end

local scene = {
  sphere(vec(0, 1, 5), 1, vec(0.9, 0.2, 0.2), 0.3),
  sphere(vec(-2, 0.7, 6), 0.7, vec(0.2, 0.9, 0.2), 0.2),
  sphere(vec(2, 1.2, 7), 1.2, vec(0.2, 0.3, 0.9), 0.5),
  plane(vec(0, 1, 0), 0, 0.2),
}
local lights = { { pos = vec(-5, 8, -2), color = vec(1, 1, 1) }, { pos = vec(4, 6, 1), color = vec(0.4, 0.4, 0.5) } }

local function closest(origin, dir)
  local best, hit = math.huge, nil
  for _, obj in ipairs(scene) do
    local t = obj:intersect(origin, dir)
    if t and t < best then best, hit = t, obj end
  end
  return hit, best
end

local function trace(origin, dir, depth)
  local obj, t = closest(origin, dir)
  if not obj then return vec(0.1, 0.1, 0.2) end
  local p = origin + dir * t
  local n = obj:normal(p)
  local base = obj.colorAt and obj:colorAt(p) or obj.color
  local color = base * 0.1
  for _, light in ipairs(lights) do
    local to_light = light.pos - p
    local dist = to_light:length()
    local l = to_light * (1 / dist)
    local shadow, st = closest(p, l)
    if not shadow or st > dist then
      local diffuse = n:dot(l)
      if diffuse > 0 then color = color + base:hadamard(light.color) * diffuse end
    end
  end
  if depth > 0 and obj.reflect > 0 then
    local r = dir - n * (2 * n:dot(dir))
    color = color * (1 - obj.reflect) + trace(p, r:norm(), depth - 1) * obj.reflect
  end
  return color
end

local checksum, bright = 0, 0
local eye = vec(0, 1.5, -3)
for frame = 1, 6 do
  for y = 0, H - 1 do
    for x = 0, W - 1 do
      local dir = vec((x - W / 2) / H, (H / 2 - y) / H - 0.1, 1):norm()
      local c = trace(eye, dir, 2)
      local r = math.floor(math.min(c.x, 1) * 255)
      local g = math.floor(math.min(c.y, 1) * 255)
      local b = math.floor(math.min(c.z, 1) * 255)
      checksum = (checksum * 31 + r * 65536 + g * 256 + b) % 1000000007
      if r + g + b > 600 then bright = bright + 1 end
    end
  end
end
print("checksum", checksum, "bright pixels", bright)
