-- An automatic collection at a concatenation runs after its result is stored (5.1's
-- luaC_checkGC after OP_CONCAT): the slot the result goes to no longer holds what it held
-- before, here the loop condition's value, so the weakly held table is collected
-- (closure.lua loops until it is).
local x = setmetatable({[1] = {}}, {__mode = "kv"})
local n = 0
while x[1] and n < 5e6 do
  local a = n .. n .. n .. n
  n = n + 1
end
print(x[1], n < 5e6)
