-- Call-heavy recursion: Ackermann's function, Takeuchi's tak and a mutually recursive
-- pair; deep non-tail and nested calls with few operations between them.
local ACK_N = 9
local ACK_ROUNDS = 2
local TAK_ROUNDS = 10

local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end

local function tak(x, y, z)
  if y >= x then return z end
  return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
end

local calls = 0
local function takc(x, y, z)
  calls = calls + 1
  if y < x then
    return takc(takc(x - 1, y, z), takc(y - 1, z, x), takc(z - 1, x, y))
  end
  return z
end

local is_odd
local function is_even(n)
  if n == 0 then return true end
  return is_odd(n - 1)
end
function is_odd(n)
  if n == 0 then return false end
  return is_even(n - 1)
end

local s = 0
for i = 1, ACK_ROUNDS do s = s + ack(2, 100 * i) + ack(3, ACK_N) end
print("ack(3," .. ACK_N .. ") = " .. ack(3, ACK_N))
print("ack sum", s)
local t = 0
for i = 1, TAK_ROUNDS do t = t + tak(18 + i % 2, 12, 6) end
print("tak(18,12,6) = " .. tak(18, 12, 6))
print("tak sum", t)
print("takc(12,8,4) = " .. takc(12, 8, 4), "calls", calls)
local evens = 0
for n = 1, 2000 do if is_even(n % 300) then evens = evens + 1 end end
print("evens", evens)
