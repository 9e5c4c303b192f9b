-- Ordering comparisons never coerce: a number and a string cannot be compared, even when
-- the string looks like a number (equality, by contrast, just yields false).
print(10 == "10", 10 ~= "10")
local n, s = 10, "9"
print(n < s)
