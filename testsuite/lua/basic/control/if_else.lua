-- if/elseif/else with every kind of condition value, nesting, and branches that
-- declare locals of their own.
local function classify(n)
  if n < 0 then
    return "negative"
  elseif n == 0 then
    return "zero"
  elseif n < 10 then
    return "small"
  elseif n < 100 then
    return "medium"
  else
    return "large"
  end
end
print(classify(-5), classify(0), classify(3), classify(42), classify(1000), classify(0/0))
if nil then print("nil is true?") end
if false then print("false is true?") else print("false is false") end
if 0 then print("0 is true") end
if "" then print("'' is true") end
if print then print("a function is true") end
local x = 15
if x % 3 == 0 and x % 5 == 0 then
  print("fizzbuzz")
elseif x % 3 == 0 then
  print("fizz")
end
if x > 10 then
  if x > 20 then
    print("x > 20")
  else
    local y = x * 2
    if y > 25 then print("10 < x <= 20 and 2x > 25", y) end
  end
end
-- elseif chains stop at the first true condition.
local hits = ""
if x > 1 then hits = hits .. "a" elseif x > 2 then hits = hits .. "b" else hits = hits .. "c" end
print(hits)
-- Empty branches are legal.
if x then else print("unreachable") end
if not x then elseif x then print("empty then, taken elseif") end
for i = 1, 15 do
  local out
  if i % 15 == 0 then out = "FizzBuzz"
  elseif i % 3 == 0 then out = "Fizz"
  elseif i % 5 == 0 then out = "Buzz"
  else out = i end
  print(out)
end
