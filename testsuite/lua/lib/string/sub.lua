-- string.sub: positive, negative, zero and out-of-range indices, default j, empty results
-- when i > j, numbers as subjects, string-number indices, and the argument errors.
local s = "hello world"
print(s:sub(1, 5), s:sub(7), s:sub(-5), s:sub(-5, -2), s:sub(0), s:sub(0, 0))
print("[" .. s:sub(5, 4) .. "]", "[" .. s:sub(100) .. "]", "[" .. s:sub(-100, 2) .. "]", s:sub(3, 100))
print(s:sub(-1), s:sub(-1, -1), "[" .. s:sub(-1, -2) .. "]", s:sub(2, -2), s:sub(11, 11), "[" .. s:sub(12) .. "]")
print(string.sub("abc", 2), string.sub("abc", "2", "3"), string.sub(12345, 2, 4), string.sub("abc", 1.7, 2.2))
print(string.sub("", 1), string.sub("", 0, -1), string.sub("", -1, 1), #string.sub("a\0b", 1, 3))
print(string.sub("abc", -3, -3), string.sub("abc", -4, -3), string.sub("abc", 4, 5) == "")
for i = -4, 4 do io.write("[", ("abc"):sub(i), "]") end print()
for j = -4, 4 do io.write("[", ("abc"):sub(1, j), "]") end print()
print(pcall(string.sub))
print(pcall(string.sub, "abc"))
print(pcall(string.sub, "abc", "x"))
print(pcall(string.sub, "abc", 1, {}))
print(pcall(function() return ("abc"):sub() end))
print(pcall(function() return string.sub(nil, 1) end))
