-- Ordering comparisons with NaNs, as branches and as values, in every shape the compiler emits
-- (slot/slot, slot/constant, constant/slot; `<`, `<=`, `>`, `>=` and their negations): a NaN
-- on either side makes every ordering false. The handlers test "both are doubles" with the
-- comparison's own `ucomisd`, and a NaN double leaves that test for the branch's outcome.
local zero = 0
local nan, inf = zero / zero, 1 / zero
local values = { nan, -nan, 0, 1, -1, inf, -inf, 0.5 }
local function name(v)
  if v ~= v then return "nan" end
  return tostring(v)
end
for _, a in ipairs(values) do
  for _, b in ipairs(values) do
    local r = {}
    if a < b then r[#r + 1] = "lt" end
    if a <= b then r[#r + 1] = "le" end
    if a > b then r[#r + 1] = "gt" end
    if a >= b then r[#r + 1] = "ge" end
    if not (a < b) then r[#r + 1] = "!lt" end
    if not (a <= b) then r[#r + 1] = "!le" end
    if not (a > b) then r[#r + 1] = "!gt" end
    if not (a >= b) then r[#r + 1] = "!ge" end
    r[#r + 1] = tostring(a < b) .. tostring(a <= b) .. tostring(a > b) .. tostring(a >= b)
    print(name(a), name(b), table.concat(r, " "))
  end
  -- Against constants, on both sides.
  print(name(a), a < 1, a <= 1, a > 1, a >= 1, 1 < a, 1 <= a, 1 > a, 1 >= a,
    not (a < 0.5), not (0.5 <= a), a < -1 and "t" or "f", -1 >= a and "t" or "f")
end
-- Loops whose condition meets a NaN.
local n = 0
for _, v in ipairs(values) do
  local i = 0
  while i < v and i < 3 do i = i + 1 end
  repeat n = n + 1 until not (v <= 10) or n > 100
  n = n + i
end
print(n)
-- A numeric for with a NaN limit or step runs no iteration (5.1's `<=` test).
local count = 0
for i = 1, nan do count = count + 1 end
for i = nan, 3 do count = count + 1 end
print(count)
