-- List (are-we-fast-yet): singly linked lists of tables and the recursive "tail" function
-- that compares lengths by walking them; many calls, field reads and small allocations.
local ROUNDS = 1800

local function make_list(length)
  if length == 0 then return nil end
  return { val = length, next = make_list(length - 1) }
end

local function is_shorter_than(x, y)
  local x_tail, y_tail = x, y
  while y_tail ~= nil do
    if x_tail == nil then return true end
    x_tail = x_tail.next
    y_tail = y_tail.next
  end
  return false
end

local function tail(x, y, z)
  if is_shorter_than(y, x) then
    return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y))
  end
  return z
end

local function length(l)
  local n = 0
  while l ~= nil do n = n + 1; l = l.next end
  return n
end

local total, head_sum = 0, 0
local result
for r = 1, ROUNDS do
  result = tail(make_list(15), make_list(10), make_list(6))
  total = total + length(result)
  head_sum = head_sum + result.val * (r % 7)
end
print("length of result", length(result))
print("head value", result.val)
print("total length", total)
print("head checksum", head_sum)
