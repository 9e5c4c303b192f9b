-- Sieve of Eratosthenes, repeated: array writes and tight numeric loops.
local function sieve(n)
  local composite = {}
  for i = 1, n do composite[i] = false end
  local count = 0
  for i = 2, n do
    if not composite[i] then
      count = count + 1
      for j = i * i, n, i do composite[j] = true end
    end
  end
  return count
end
local total = 0
for _ = 1, 150 do total = total + sieve(100000) end
print("primes below 100000: " .. sieve(100000), total)
