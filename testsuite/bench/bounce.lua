-- Bounce (are-we-fast-yet): balls as objects with a method, moved inside a box; an LCG
-- with % 65536 in place of a bit mask. Field reads/writes, math.abs, comparisons.
local ROUNDS = 1200
local BALLS, STEPS = 100, 50

local seed = 74755
local function next_random()
  seed = (seed * 1309 + 13849) % 65536
  return seed
end

local Ball = {}
Ball.__index = Ball
local function new_ball()
  return setmetatable({
    x = next_random() % 500,
    y = next_random() % 500,
    x_vel = (next_random() % 300) - 150,
    y_vel = (next_random() % 300) - 150,
  }, Ball)
end

local abs = math.abs
function Ball:bounce()
  local x_limit, y_limit = 500, 500
  local bounced = false
  self.x = self.x + self.x_vel
  self.y = self.y + self.y_vel
  if self.x > x_limit then self.x = x_limit; self.x_vel = 0 - abs(self.x_vel); bounced = true end
  if self.x < 0 then self.x = 0; self.x_vel = abs(self.x_vel); bounced = true end
  if self.y > y_limit then self.y = y_limit; self.y_vel = 0 - abs(self.y_vel); bounced = true end
  if self.y < 0 then self.y = 0; self.y_vel = abs(self.y_vel); bounced = true end
  return bounced
end

local function benchmark()
  seed = 74755
  local balls = {}
  for i = 1, BALLS do balls[i] = new_ball() end
  local bounces = 0
  for _ = 1, STEPS do
    for i = 1, #balls do
      if balls[i]:bounce() then bounces = bounces + 1 end
    end
  end
  local pos = 0
  for i = 1, #balls do pos = pos + balls[i].x * 3 + balls[i].y end
  return bounces, pos
end

local total, bad = 0, 0
local bounces, pos
for _ = 1, ROUNDS do
  bounces, pos = benchmark()
  if bounces ~= 1331 then bad = bad + 1 end
  total = total + bounces
end
print("bounces per round", bounces)
print("position checksum", pos)
print("total bounces", total)
print("wrong rounds", bad)
