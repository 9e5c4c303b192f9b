-- table.sort: numbers and strings in default order, custom comparators (descending, by
-- field, by several keys), __lt metamethods, already sorted and reversed inputs, the exact
-- sequence of comparator calls (5.1's quicksort), "invalid order function for sorting" with
-- an inconsistent comparator, comparing mixed types, and the argument errors.
local function show(t) local o = {} for i = 1, #t do o[i] = tostring(t[i]) end return table.concat(o, " ") end
local t = {5, 2, 8, 1, 9, 3, 7, 4, 6, 0}
table.sort(t) print(show(t))
t = {"banana", "apple", "Cherry", "date", "", "apple2", "B"}
table.sort(t) print(show(t))
t = {3.5, -1, 2, -7.25, 0, 1e10, -1e10}
table.sort(t) print(show(t))
t = {5, 2, 8, 1, 9}
table.sort(t, function(a, b) return a > b end) print(show(t))
local recs = {{n = "bob", age = 30}, {n = "al", age = 25}, {n = "cy", age = 35}, {n = "di", age = 25}}
table.sort(recs, function(a, b) if a.age ~= b.age then return a.age < b.age end return a.n < b.n end)
for _, r in ipairs(recs) do io.write(r.n, ":", r.age, " ") end print()
local mt = {__lt = function(a, b) return a.v < b.v end}
local objs = {}
for _, v in ipairs({4, 1, 3, 2}) do objs[#objs + 1] = setmetatable({v = v}, mt) end
table.sort(objs)
for _, o in ipairs(objs) do io.write(o.v, " ") end print()
print(select("#", table.sort({})), select("#", table.sort({1})))
local sorted = {}
for i = 1, 50 do sorted[i] = i end
table.sort(sorted) print(sorted[1], sorted[25], sorted[50])
table.sort(sorted, function(a, b) return a > b end) print(sorted[1], sorted[25], sorted[50])
local same = {}
for i = 1, 20 do same[i] = 7 end
table.sort(same) print(show(same))
-- Pseudo-random input, checked for order.
local big, x = {}, 1
for i = 1, 500 do x = (x * 1103515245 + 12345) % 2147483648 big[i] = x % 1000 end
table.sort(big)
local ok = true
for i = 2, #big do if big[i - 1] > big[i] then ok = false end end
print("ordered", ok, big[1], big[250], big[500])
-- The comparisons made, in order.
local calls = {}
t = {5, 3, 1, 4, 2}
table.sort(t, function(a, b) calls[#calls + 1] = a .. "<" .. b return a < b end)
print(table.concat(calls, " "))
calls = {}
t = {"e", "d", "c", "b", "a", "f", "g"}
table.sort(t, function(a, b) calls[#calls + 1] = a .. b return a < b end)
print(table.concat(calls, " "))
local function mk(n) local r = {} for i = 1, n do r[i] = (i * 7) % n + 1 end return r end
for _, n in ipairs({3, 5, 10, 100}) do
  print(n, pcall(table.sort, mk(n), function(a, b) return true end))
  print(n, pcall(table.sort, mk(n), function(a, b) return a <= b end))
end
print(pcall(table.sort, {3, "a", 1}))
print(pcall(table.sort, {1, 2, "x", 4, 5}))
print(pcall(table.sort, {{}, {}}))
print(pcall(table.sort, {true, false}))
print(pcall(table.sort, {1, 2, 3}, function(a, b) error("cmp failed") end))
print(pcall(table.sort))
print(pcall(table.sort, "abc"))
print(pcall(table.sort, {}, 1))
print(pcall(table.sort, {3, 1}, "notafunction"))
print(pcall(function() table.sort(nil) end))
