-- Prime testing by trial division and prime counting, without tables.
function is_prime(n)
  if n < 2 then return false end
  if n < 4 then return true end
  if n % 2 == 0 then return false end
  local d = 3
  while d * d <= n do
    if n % d == 0 then return false end
    d = d + 2
  end
  return true
end
local list = ""
for n = 1, 60 do
  if is_prime(n) then list = list .. n .. " " end
end
print(list)
local count, sum = 0, 0
for n = 1, 20000 do
  if is_prime(n) then
    count = count + 1
    sum = sum + n
  end
end
print("primes below 20000", count, sum)
-- Twin primes and the largest prime gap below 20000.
local twins, gap, gap_at, prev = 0, 0, 0, 2
for n = 3, 20000, 2 do
  if is_prime(n) then
    if n - prev == 2 then twins = twins + 1 end
    if n - prev > gap then gap, gap_at = n - prev, prev end
    prev = n
  end
end
print("twin pairs", twins, "largest gap", gap, "after", gap_at)
print(is_prime(2147483647), is_prime(1000000007), is_prime(999999999989), is_prime(1000000000001))
