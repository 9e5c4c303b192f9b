-- table.insert (append, insert at a position shifting elements up, positions beyond the
-- end, wrong number of arguments) and table.remove (default last element, from the middle
-- and front shifting down, empty tables, positions out of range), with their results.
local function show(t) local out = {} for i = 1, #t do out[i] = tostring(t[i]) end return "{" .. table.concat(out, ",") .. "} #" .. #t end
local t = {}
table.insert(t, "a")
table.insert(t, "b")
print(show(t))
table.insert(t, 1, "first")
print(show(t))
table.insert(t, 2, "second")
print(show(t))
table.insert(t, #t + 1, "last")
print(show(t))
table.insert(t, "3", "three")
print(show(t))
print(select("#", table.insert(t, "x")))
print(pcall(table.insert, t))
print(pcall(table.insert, t, 1, 2, 3))
print(pcall(table.insert))
print(pcall(table.insert, nil, 1))
print(pcall(table.insert, "str", 1))
print(pcall(table.insert, t, "x", 1))
print(pcall(function() table.insert({}, 1, 2, 3) end))
print(pcall(function() table.insert(nil, 1) end))
local r = {1, 2, 3, 4, 5}
print(table.remove(r), show(r))
print(table.remove(r, 1), show(r))
print(table.remove(r, 2), show(r))
print(table.remove(r, #r), show(r))
print(table.remove(r), show(r))
print(table.remove(r), show(r))
print(select("#", table.remove({})), table.remove({}))
print(table.remove({1, 2, 3}, "2"))
print(pcall(table.remove))
print(pcall(table.remove, {}, "x"))
print(pcall(function() table.remove(nil) end))
-- A queue built with insert and remove.
local q = {}
for i = 1, 5 do table.insert(q, i * i) end
local out = {}
while #q > 0 do out[#out + 1] = table.remove(q, 1) end
print(table.concat(out, " "))
-- A stack.
local st = {}
for c in ("abc"):gmatch(".") do table.insert(st, c) end
local rev = ""
while #st > 0 do rev = rev .. table.remove(st) end
print(rev)
