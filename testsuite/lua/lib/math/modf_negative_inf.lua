-- math.modf(-inf): C's modf gives a fractional part of -0 (printed "-0"), like modf(-0.5)'s
-- integer part.
print(math.modf(-math.huge))
print(math.modf(-0.5))
local _, frac = math.modf(-math.huge)
print(1 / frac)
