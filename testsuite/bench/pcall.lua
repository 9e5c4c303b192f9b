-- Protected calls: pcall of a small function in a tight loop (the common case: it succeeds),
-- now and then a validator under pcall that raises an error (a string, a table), xpcall of a
-- closure with a message handler, and a pcall of pcall.
local N = 10000000

local function add(a, b) return a + b end
local function check_positive(x)
  if x <= 0 then error("not positive: " .. x, 0) end
  return x
end
local function check_range(x, lo, hi)
  if x < lo or x > hi then error({ code = 2, value = x }) end
  return x
end

local sum, failures, codes = 0, 0, 0
for i = 1, N do
  local ok, v = pcall(add, i, 1)
  if ok then sum = sum + v end
  if i % 128 == 0 then
    local ok2, e = pcall(check_positive, i % 512 - 256)
    if not ok2 then failures = failures + #e end
  end
  if i % 1024 == 0 then
    local ok3, e = pcall(check_range, i % 1000, 100, 900)
    if not ok3 then codes = codes + e.code end
  end
end

local handled = 0
local function handler(e)
  handled = handled + 1
  return e
end
local function positive_or_zero(x) return check_positive(x) end
for i = 1, N / 20 do
  local ok, v = xpcall(function() return positive_or_zero(i % 100) end, handler)
  if ok then sum = sum + v end
  local _, _, w = pcall(pcall, add, i, i)
  sum = sum + w
end
print(sum, failures, codes, handled)
