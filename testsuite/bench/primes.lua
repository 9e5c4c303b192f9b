-- Prime counting by trial division: a global function called in a loop, with an inner
-- while loop of modulo tests.
function is_prime(n)
  if n < 2 then return false end
  if n % 2 == 0 then return n == 2 end
  local d = 3
  while d * d <= n do
    if n % d == 0 then return false end
    d = d + 2
  end
  return true
end
local count, sum = 0, 0
for n = 1, 1500000 do
  if is_prime(n) then
    count = count + 1
    sum = sum + n
  end
end
print(count, sum)
