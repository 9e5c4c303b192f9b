-- Euclid's algorithm (iterative and recursive), lcm, and coprime counting: integer
-- arithmetic carried out in doubles with % and /.
function gcd(a, b)
  while b ~= 0 do
    a, b = b, a % b
  end
  return a
end
local function gcd_rec(a, b)
  if b == 0 then return a end
  local g = gcd_rec(b, a % b)
  return g
end
function lcm(a, b) return a / gcd(a, b) * b end
print(gcd(48, 18), gcd(17, 5), gcd(0, 9), gcd(270, 192), gcd(2^40, 6^20))
print(gcd_rec(48, 18), gcd_rec(1071, 462), gcd_rec(123456789, 987654321))
print(lcm(4, 6), lcm(21, 6), lcm(1, 1))
-- lcm(1..30)
local l = 1
for i = 2, 30 do l = lcm(l, i) end
print("lcm(1..30)", l)
-- Euler's totient by counting coprimes.
local out = ""
for n = 1, 20 do
  local c = 0
  for k = 1, n do
    if gcd(n, k) == 1 then c = c + 1 end
  end
  out = out .. c .. " "
end
print("phi(1..20)", out)
