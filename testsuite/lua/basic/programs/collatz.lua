-- Collatz sequences: the longest chain below 10000 and a few chain lengths, stressing
-- while loops, modulo and division on large intermediate values.
function chain_length(n)
  local steps = 0
  while n ~= 1 do
    if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
    steps = steps + 1
  end
  return steps
end
print(chain_length(1), chain_length(6), chain_length(27), chain_length(97), chain_length(871))
local best, best_n = 0, 0
for n = 1, 9999 do
  local l = chain_length(n)
  if l > best then best, best_n = l, n end
end
print("longest below 10000", best_n, best)
-- Highest value reached from 77031.
local n, peak = 77031, 77031
while n ~= 1 do
  if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
  if n > peak then peak = n end
end
print("peak", peak)
