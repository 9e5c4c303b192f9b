-- Comparisons between mixed types: equality is false without coercion, ordering
-- numbers with strings is an error (no coercion), strings compare bytewise, and
-- numeric-looking strings compare as strings.
print(1 == "1", "1" == 1, 0 == "0", "" == 0, nil == false, 0 == false)
print(1 ~= "1", "abc" ~= "abc", 1 ~= 1.0)
print(pcall(function() return 1 < "2" end))
print(pcall(function() return "1" <= 2 end))
print(pcall(function() return 2 > "1" end))
print(pcall(function() return "x" >= 0 end))
print(pcall(function() local a, b = 1, "1" return a < b end))
-- Strings: lexicographic by bytes.
print("a" < "b", "a" < "B", "Z" < "a", "abc" < "abd", "ab" < "abc", "" < "\0")
print("10" < "9", "10" < "10.0", "-1" < "0", " 1" < "1")
print("a\0b" < "a\0c", "a\0" > "a", "\255" > "\127")
-- Numbers.
print(1 < 2, -1 < 0, 1.5 <= 1.5, 1e300 < 1/0, -1/0 < -1e300)
-- NaN compares false with everything, including itself.
local nan = 0 / 0
print(nan == nan, nan ~= nan, nan < 1, nan > 1, nan <= nan, 1 <= nan)
-- Comparisons produce booleans usable in expressions.
local r = (1 < 2) == ("a" < "b")
print(r, type(1 < 2), not (1 < 2))
-- Sorting mixed types fails.
print(pcall(table.sort, {3, "1", 2}))
-- Sorting numeric strings uses string order.
local s = {"10", "9", "100", "1"}
table.sort(s)
print(table.concat(s, " "))
