-- and/or return one of their operands (not a boolean); only nil and false are falsy,
-- so 0 and "" are true.
print("and", 1 and 2, nil and 2, false and 2, 1 and nil, 1 and false, 0 and "zero")
print("or", 1 or 2, nil or 2, false or 2, nil or false, false or nil, "" or 1)
print("truthy", 0 and "0 is true", "" and "empty string is true", -1 and "yes")
print("chains", 1 and 2 and 3, nil or false or 3, 1 and nil or 4, nil and 1 or nil)
print("mixed", false or 1 and 2, (false or 1) and 2, nil and nil or "d")
local x
local default = x or "default"
print(default, x or 0, (x or 5) + 1)
x = 7
print(x or "default", x and x * 2, x > 5 and "big" or "small", x < 5 and "big" or "small")
-- The ternary idiom fails when the middle value is falsy.
local c = true
print(c and false or "oops", c and nil or "oops")
local n = 3
local kind = n % 2 == 0 and "even" or "odd"
print(n, kind)
