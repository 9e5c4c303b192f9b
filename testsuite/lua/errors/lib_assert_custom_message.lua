-- An uncaught assert with a message: 5.1 raises it through luaL_error, so the message is
-- located at the assert ("f.lua:N: value must be positive").
local function positive(v)
  assert(v > 0, "value must be positive")
  return v
end
print(positive(3))
print(positive(-1))
