-- Floating-point iterations: Newton's square root, a continued fraction for the golden
-- ratio, the Leibniz series for pi and compound interest. Every step's rounding is part
-- of the result, so these catch any deviation from IEEE double arithmetic.
function sqrt(x)
  if x == 0 then return 0 end
  local g = x
  for i = 1, 60 do
    local next_g = (g + x / g) / 2
    if next_g == g then return g end
    g = next_g
  end
  return g
end
print(sqrt(2), sqrt(9), sqrt(1e10), sqrt(0.5), sqrt(2) * sqrt(2), sqrt(2) ^ 2 == 2)
local phi = 1
for i = 1, 40 do phi = 1 + 1 / phi end
print("phi", phi, phi * phi - phi - 1)
local pi4, sign = 0, 1
for k = 0, 99999 do
  pi4 = pi4 + sign / (2 * k + 1)
  sign = -sign
end
print("pi (Leibniz)", pi4 * 4)
local money = 1000
for year = 1, 30 do money = money * 1.05 end
print("compound", money)
local e, term = 1, 1
for n = 1, 20 do
  term = term / n
  e = e + term
end
print("e", e, e - 2.718281828459045)
