-- error with level 2 blames the caller: the message is located at the line that called the
-- checking function.
local function expect_number(v)
  if type(v) ~= "number" then error("number expected, got " .. type(v), 2) end
  return v
end
print(expect_number(4))
local x = expect_number("four")
print("not reached", x)
