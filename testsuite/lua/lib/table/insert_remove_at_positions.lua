-- table.insert and table.remove at a position move the array part's elements in one move when
-- every key involved is in it, one raw get and set at a time otherwise (the hash part, holes):
-- both ways, nil values, raw access under metatables, a queue and a long array of tables
-- (traced in pieces by the collector) shifted while collections run.
local function show(t, n) local p = {} for i = 1, n do p[#p + 1] = tostring(t[i]) end return table.concat(p, ",") end
local t = {}
for i = 1, 10 do table.insert(t, 1, i) end
print(show(t, 12), #t)
table.insert(t, 5, "x"); table.insert(t, #t, "y"); table.insert(t, #t + 1, "z")
print(show(t, 15), #t)
print(table.remove(t, 1), table.remove(t, 3), table.remove(t, #t), table.remove(t))
print(show(t, 15), #t)
print(table.remove(t, #t + 1), table.remove(t, 0), table.remove({}), table.remove({}, 1))
-- elements in the hash part (built out of order)
local h = {}
for i = 6, 1, -1 do h[i] = i * 10 end
table.insert(h, 2, "in"); print(show(h, 8), #h)
print(table.remove(h, 3), show(h, 8), #h)
-- insert nil in the middle, holes
local n = {1, 2, 3, 4}
table.insert(n, 2, nil); print(show(n, 6))
-- metatables are ignored (raw)
local m = setmetatable({1, 2, 3}, {__index = function() return "mm" end, __newindex = function() error("no") end})
table.insert(m, 1, 0); print(show(m, 5), #m); print(table.remove(m, 2), show(m, 5))
-- a queue: many pushes at the back, pops at the front, across collections
local q = {}
local sum = 0
for i = 1, 3000 do
  q[#q + 1] = {i}
  if i % 3 == 0 then sum = sum + table.remove(q, 1)[1] end
  if i % 100 == 0 then collectgarbage("step") end
end
while #q > 0 do sum = sum + table.remove(q, 1)[1] end
print(sum)
-- insert at the front of a long array of tables (traced in pieces) under collection
local big = {}
for i = 1, 2000 do table.insert(big, 1, {i}) if i % 250 == 0 then collectgarbage("step", 10) end end
collectgarbage()
local s = 0 for i = 1, #big do s = s + big[i][1] end
print(#big, s, big[1][1], big[2000][1])
