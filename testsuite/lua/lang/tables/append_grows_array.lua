-- Appends that find the array part full (every fresh `{}`, then each doubling): the handler
-- has the runtime grow it and push, by `t[#t + 1] = v`, `t[i] = v` in order, a constant
-- index and `table.insert`; anything else (a hash part, a nil at the end, a metatable, a
-- nil value) stays the generic store's. `#t`, `ipairs`, `next` and `unpack` must agree with
-- 5.1 afterwards.

local function show(name, t)
  local n, sum = 0, 0
  for _, v in pairs(t) do n = n + 1; sum = sum + (type(v) == "number" and v or 1) end
  local seq = 0
  for _ in ipairs(t) do seq = seq + 1 end
  print(name, #t, n, seq, sum)
end

-- Many small fresh tables, each grown from nothing (the first append of each needs room).
local lists = {}
for i = 1, 3000 do
  local t = {}
  for j = 1, i % 9 do t[#t + 1] = j end
  lists[i] = t
end
local total = 0
for i = 1, #lists do total = total + #lists[i] end
print("small lists", total)

-- Each way of appending, across several doublings.
local a = {}
for i = 1, 100 do a[#a + 1] = i end
show("length append", a)
local b = {}
for i = 1, 100 do b[i] = i * 2 end
show("indexed append", b)
local c = {}
c[1] = "one"; c[2] = "two"; c[3] = "three"; c[4] = "four"; c[5] = "five"
show("constant indices", c)
local d = {}
for i = 1, 100 do table.insert(d, i) end
show("table.insert", d)

-- A table with named fields appends the same way; one with a number in its hash part gets
-- the generic store, which moves the following keys into the array part.
local obj = { name = "x", size = 2 }
for i = 1, 10 do obj[#obj + 1] = i end
show("fields and list", obj)
local gap = {}
gap[3] = "c"; gap[4] = "d"
gap[1] = "a"; gap[2] = "b"
show("hash then array", gap)
gap[#gap + 1] = "e"
show("hash then array, appended", gap)

-- A nil at the end: the next index is not the length's, 5.1's border rules decide.
local holes = { 1, 2, 3, 4 }
holes[4] = nil
holes[5] = 5
show("after a hole", holes)
holes[#holes + 1] = "x"
show("append after a hole", holes)

-- A nil value appends nothing.
local e = {}
e[#e + 1] = nil
e[1] = nil
show("nil values", e)

-- `__newindex` sees appends to a table it guards; `__index` alone does not stop them.
local calls = 0
local guarded = setmetatable({}, { __newindex = function(t, k, v) calls = calls + 1; rawset(t, k, v) end })
for i = 1, 20 do guarded[#guarded + 1] = i end
print("newindex calls", calls, #guarded)
local inherits = setmetatable({}, { __index = { 10, 20, 30 } })
for i = 1, 5 do inherits[i] = i end
show("with __index", inherits)

-- Tables held only by the array parts that grow while the collector runs.
local nested = {}
for i = 1, 500 do
  local row = {}
  for j = 1, 8 do row[#row + 1] = { i * j } end
  nested[#nested + 1] = row
end
collectgarbage()
local s = 0
for _, row in ipairs(nested) do for _, cell in ipairs(row) do s = s + cell[1] end end
print("nested", #nested, s)
print("unpack", unpack(a, 98))

-- Arrays filled from index 0 (key 0 lives in the hash part): every append has a hash part.
local zero = {}
for i = 0, 50 do zero[i] = i end
show("from zero", zero)
print("zero key", zero[0], next(zero) ~= nil)
local zero_nested = {}
for w = 0, 300 do zero_nested[w] = {}; zero_nested[w][#zero_nested[w] + 1] = w end
local zs = 0
for w = 0, 300 do zs = zs + zero_nested[w][1] end
print("zero nested", zs, #zero_nested)

-- Keys after the length in the hash part move into the array part as appends reach them.
local ahead = {}
ahead[2] = "b"; ahead[3] = "c"; ahead[5] = "e"; ahead.name = "n"
ahead[1] = "a"
show("appended up to a gap", ahead)
ahead[#ahead + 1] = "d"
show("appended across the gap", ahead)

-- `table.insert` with keys in the hash part: the border may lie past the array part.
local border = {}
for i = 1, 4 do border[i] = i end
border[6] = 6; border[5] = 5
table.insert(border, 7)
show("insert at the border", border)
local sparse = { 1, 2, 3 }
sparse[10] = 10
table.insert(sparse, 4)
show("insert beside a far key", sparse)
print("far key kept", sparse[10], sparse[4])
