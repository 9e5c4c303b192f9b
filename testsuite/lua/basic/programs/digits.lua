-- Converting numbers to digit strings in several bases and back, digit sums, and
-- palindromes: integer division done as (n - n % b) / b.
function to_base(n, b)
  if n == 0 then return "0" end
  local s = ""
  while n > 0 do
    local d = n % b
    local ch
    if d < 10 then ch = d .. "" else
      if d == 10 then ch = "a" elseif d == 11 then ch = "b" elseif d == 12 then ch = "c"
      elseif d == 13 then ch = "d" elseif d == 14 then ch = "e" else ch = "f" end
    end
    s = ch .. s
    n = (n - d) / b
  end
  return s
end
print(to_base(255, 2), to_base(255, 8), to_base(255, 16), to_base(0, 2), to_base(2^40, 16))
print(to_base(1e15, 16), to_base(123456789, 7), to_base(2^53 - 1, 2))
-- Digit sums and digital roots.
function digit_sum(n)
  local s = 0
  while n > 0 do
    s = s + n % 10
    n = (n - n % 10) / 10
  end
  return s
end
local roots = ""
for n = 1, 20 do
  local r = n * 37
  while r >= 10 do r = digit_sum(r) end
  roots = roots .. r
end
print("digital roots", roots, digit_sum(2^50))
-- Reverse a number and find palindromic products.
function reverse(n)
  local r = 0
  while n > 0 do
    r = r * 10 + n % 10
    n = (n - n % 10) / 10
  end
  return r
end
local best, ba, bb = 0, 0, 0
for a = 900, 999 do
  for b = a, 999 do
    local p = a * b
    if p > best and reverse(p) == p then best, ba, bb = p, a, b end
  end
end
print("largest palindrome product", best, ba, bb)
-- Digit counts via the length of the decimal string.
print(#(12345 .. ""), #(2^40 .. ""), #(1e15 .. ""), #(0.5 .. ""))
