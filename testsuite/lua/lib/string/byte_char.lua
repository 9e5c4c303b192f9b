-- string.byte and string.char: default and explicit ranges, negative and out-of-range
-- indices, all 256 byte values round-tripping, embedded zeros, and the errors for values
-- outside 0..255 and non-numbers.
print(string.byte("A"), string.byte("ABC", 2), string.byte("ABC", -1))
print(string.byte("ABC", 1, 3))
print(string.byte("ABC", 1, -1))
print(string.byte("ABC", -2, -1))
print(string.byte("ABC", 0), string.byte("ABC", 4), string.byte(""))
print(select("#", string.byte("ABC", 3, 2)), select("#", string.byte("")), select("#", string.byte("ABC", 10, 20)))
print(string.byte("ABC", -10, 2))
print(string.byte("ABC", 2, 100))
print(string.byte("a\0b", 1, 3))
print(string.byte(123), string.byte(4.5))
print(("xyz"):byte(-1), ("xyz"):byte(1, -1))
print(string.byte("ABC", "2"), string.byte("ABC", 1.9))
print(string.char(72, 105), string.char(), #string.char(0, 0))
print(string.char("65", 66.0))
local all = {}
for i = 0, 255 do all[#all + 1] = i end
local s = string.char(unpack(all))
print(#s)
local ok = true
for i = 1, 256 do if s:byte(i) ~= i - 1 then ok = false end end
print("round trip", ok)
print(string.byte(s, 256), string.byte(s, 1))
print(pcall(string.char, 256))
print(pcall(string.char, -1))
print(pcall(string.char, 65, 300))
print(pcall(string.char, "x"))
print(pcall(string.char, {}))
print(pcall(string.byte))
print(pcall(string.byte, "abc", "x"))
print(pcall(function() return string.char(1, 2, 1000) end))
print(pcall(function() return ("a"):byte({}) end))
