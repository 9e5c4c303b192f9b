-- Library functions that call Lua back and read one result (table.sort's comparator, gsub's
-- replacement function, foreach's function, __tostring, __index functions through the
-- library) with callbacks returning no value, several values, and values of every kind; and
-- sort, concat and unpack over elements in the array part, past it, and in the hash part.

-- A comparator returning nothing is "false"; extra results are ignored; any non-false,
-- non-nil value is "true".
local t = { 5, 3, 9, 1, 7 }
local calls = 0
table.sort(t, function(a, b) calls = calls + 1 if a < b then return 1, false, nil end end)
print(table.concat(t, " "), calls > 0)
t = { "b", "a", "d", "c" }
table.sort(t, function(a, b) if a > b then return "yes" end return nil, true end)
print(table.concat(t, ","))
t = { 4, 2, 8, 6 }
table.sort(t, function(a, b) return (a < b) or nil end)
print(table.concat(t, ","))
print(pcall(table.sort, { 3, 1, 2 }, function(a, b) error("cmp " .. a .. b) end))
print(pcall(table.sort, { 3, 1, 2, 5, 4 }, function(a, b) return true end))

-- Elements past the array part: keys set from the top down land in the hash part.
local h = {}
for i = 12, 1, -1 do h[i] = (i * 7) % 12 end
table.sort(h)
print(table.concat(h, " "))
table.sort(h, function(a, b) return a > b end)
print(table.concat(h, " ", 3, 9))
print(unpack(h, 10, 14))
print(select("#", unpack(h, -2, 1)), unpack({ 1, 2, nil, 4 }, 2, 4))
local mixed = { 1, 2, 3 }
mixed[5], mixed[4], mixed[0] = "five", "four", "zero"
print(table.concat(mixed, "-", 0, 5), unpack(mixed, 0, 5))

-- Sorting with a metatable on the elements: __lt through the library.
local mt = { __lt = function(a, b) return a.v < b.v, "ignored" end }
local objs = {}
for i, v in ipairs({ 3, 1, 2 }) do objs[i] = setmetatable({ v = v }, mt) end
table.sort(objs)
print(objs[1].v, objs[2].v, objs[3].v)

-- gsub's replacement function: no value or false keeps the match, extra values are ignored.
print(string.gsub("abc", "%w", function(c) if c == "b" then return "B", "x" end end))
print(string.gsub("abc", "%w", function(c) if c == "a" then return false end return c:upper() end))
print(pcall(string.gsub, "abc", "%w", function() return {} end))

-- table.foreach / foreachi stop at the first non-nil result.
print(table.foreach({ 10, 20, 30 }, function(k, v) if v == 20 then return k, "more" end end))
print(table.foreachi({ 10, 20, 30 }, function(i, v) if i == 3 then return false end end))

-- __tostring through print and tostring: the first result only.
local obj = setmetatable({}, { __tostring = function() return "obj", "extra" end })
print(obj, tostring(obj))
print(pcall(tostring, setmetatable({}, { __tostring = function() end })))
