-- Adjusting the number of results: a call is truncated to one value in the middle of a
-- list, inside parentheses, as an operand, and as a table index; it expands at the end
-- of argument lists, constructors and return lists; with no results it gives nil where
-- one value is needed.
local function three() return 1, 2, 3 end
local function none() end
print(three())
print((three()))
print(three(), 10)
print(10, three())
print(three(), three())
print(three() + 10)
print(-three(), #{three()}, #{(three())})
print(none())
print((none()))
print(none(), 1)
print(1, none())
print(select("#", none()), select("#", (none())), select("#", none(), none()))
local t = {}
t[three()] = "idx"
print(t[1], t[2])
-- String method calls.
print(("abc"):byte(1, 3))
print(("abc"):byte(1, 3), "end")
-- Return lists.
local function ret_mid() return three(), 99 end
local function ret_end() return 99, three() end
local function ret_paren() return (three()) end
print(ret_mid())
print(ret_end())
print(ret_paren())
-- Concatenation and comparison use the first value.
print(three() .. "!", three() == 1)
-- Conditions use the first value.
local function f_nil() return nil, true end
if f_nil() then print("truthy") else print("falsy") end
-- and/or use one value.
print(three() and three())
print(none() or three())
print(false or three())
-- Nested truncation.
print(pcall(three))
print(pcall(function() return three(), three() end))
print(#{pcall(three)})
-- Results of a function that returns a varying number of values.
local function upto(n)
  if n == 0 then return end
  if n == 1 then return 1 end
  if n == 2 then return 1, 2 end
  return 1, 2, 3
end
for n = 0, 3 do print(n, select("#", upto(n)), upto(n)) end
