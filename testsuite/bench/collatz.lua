-- Longest Collatz chain below a limit: while loops with %, / and branches on values that
-- grow well beyond 2^31, plus one function call per start value.
local function chain_length(n)
  local steps = 0
  while n ~= 1 do
    if n % 2 == 0 then n = n / 2 else n = 3 * n + 1 end
    steps = steps + 1
  end
  return steps
end
local best, best_n = 0, 0
for n = 1, 300000 do
  local l = chain_length(n)
  if l > best then best, best_n = l, n end
end
print(best_n, best)
