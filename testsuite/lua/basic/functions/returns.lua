-- return: a single value, no value (the call yields nil), early returns from loops and
-- branches, and `do return end` in the middle of a block.
function nothing() end
function explicit_nothing() return end
function early(n)
  for i = 1, 100 do
    if i * i >= n then return i end
  end
  return "none"
end
print(nothing(), explicit_nothing(), nothing() == nil)
local r = nothing()
print(r)
print(early(50), early(1), early(10001))
function sign(x)
  if x > 0 then return 1 elseif x < 0 then return -1 end
  return 0
end
print(sign(5), sign(-3), sign(0))
function middle(flag)
  local s = "start"
  if flag then
    do return s .. " (returned early)" end
  end
  s = s .. " end"
  return s
end
print(middle(true), middle(false))
-- Returning the value of an expression with calls and operators.
function hyp2(a, b) return a * a + b * b end
function hyp(a, b) return hyp2(a, b) ^ 0.5 end
print(hyp(3, 4), hyp(5, 12), hyp(1, 1))
-- Return values of different types from one function.
function kind(n)
  if n == 1 then return true end
  if n == 2 then return "two" end
  if n == 3 then return 3.5 end
  if n == 4 then return print end
  return nil
end
print(kind(1), kind(2), kind(3), kind(4) == print, kind(5))
-- Returning from inside nested loops.
function find_pair(target)
  for a = 1, 20 do
    for b = a, 20 do
      if a * b == target and a + b == 13 then return a .. "*" .. b end
    end
  end
end
print(find_pair(36), find_pair(40), find_pair(7))
