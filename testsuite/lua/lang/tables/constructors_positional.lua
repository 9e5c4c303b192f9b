-- Table constructors with positional fields: values land at 1..n in order, nil
-- values leave holes only in the middle, separators may be `,` or `;`, and a trailing
-- separator is allowed.
local t = {10, 20, 30}
print(#t, t[1], t[2], t[3], t[4])
local e = {}
print(#e, e[1])
local s = {"a"; "b"; "c";}
print(#s, s[1], s[2], s[3])
local m = {1, "two", true, false, 5.5}
for i = 1, 5 do print(i, type(m[i]), tostring(m[i])) end
-- Expressions are evaluated left to right.
local order = {}
local function mark(v) order[#order + 1] = v return v end
local r = {mark("x"), mark("y"), mark("z")}
print(table.concat(order, ","), table.concat(r, ","))
-- A nil in the middle: the later positions are still filled.
local h = {1, nil, 3}
print(h[1], h[2], h[3])
-- Trailing separator after the last element.
local tr = {1, 2, 3,}
print(#tr, tr[3])
-- Large constructors (more than one SETLIST batch of 50).
local big = {
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
  21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
  41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
  61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
  81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100,
  101, 102, 103, 104, 105,
}
local sum = 0
for i = 1, #big do sum = sum + big[i] end
print(#big, big[50], big[51], big[100], big[105], sum)
-- Positional values that are expressions and nested constructors.
local x = 4
local n = {x * 2, x .. "!", {x, x + 1}, (function() return "f" end)()}
print(n[1], n[2], n[3][1], n[3][2], n[4])
