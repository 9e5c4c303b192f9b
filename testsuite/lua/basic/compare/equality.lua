-- == and ~= never convert: values of different types are different, strings and numbers
-- with the same text are different, and nil/false are distinct values.
print("same type", 1 == 1, 1 == 1.0, "a" == "a", true == true, nil == nil, false == false)
print("different", 1 == 2, "a" == "b", true == false)
print("cross type", 1 == "1", "1" == 1, 0 == false, nil == false, "" == nil, 0 == nil)
print("not equal", 1 ~= "1", nil ~= false, true ~= 1, "true" ~= true)
local f = print
local g = print
local function h() end
print("functions", f == g, f == print, h == h, h ~= print, h == nil)
print("strings by value", "ab" .. "c" == "abc", "10" == 10 .. "", 10 == "10" + 0)
local a, b = nil, false
print("falsy", a == b, not a == not b, a == nil, b == false)
