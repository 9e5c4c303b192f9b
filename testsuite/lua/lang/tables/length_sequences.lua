-- The length operator on proper sequences (no holes): after constructors, appends,
-- removals from the end, table.insert/table.remove, and for strings.
local t = {}
print(#t)
for i = 1, 10 do t[#t + 1] = i * 10 end
print(#t, t[#t])
t[#t] = nil
print(#t, t[#t])
t[#t] = nil
t[#t] = nil
print(#t)
-- Growing to a size that forces rehashing.
local g = {}
for i = 1, 1000 do g[i] = i end
print(#g)
for i = 1000, 501, -1 do g[i] = nil end
print(#g)
-- Sequences built backwards (keys first go to the hash part).
local b = {}
for i = 20, 1, -1 do b[i] = i end
print(#b)
-- table.insert and table.remove keep a sequence.
local s = {"a", "b", "c"}
table.insert(s, "d")
table.insert(s, 1, "z")
print(#s, table.concat(s, ","))
print(table.remove(s), #s, table.concat(s, ","))
print(table.remove(s, 1), #s, table.concat(s, ","))
-- Length of a constructor with a call at the end.
local function r(n) local x = {} for i = 1, n do x[i] = i end return unpack(x) end
print(#{r(0)}, #{r(1)}, #{r(7)}, #{r(64)})
-- Non-integer keys do not count.
local m = {1, 2, 3, x = 1, y = 2, [1.5] = 3, [-1] = 4, [0] = 5}
print(#m)
-- # of strings counts bytes, including embedded zeros.
print(#"", #"abc", #"a\0b", #("x"):rep(100))
-- # in expressions.
local q = {5, 6, 7}
print(#q + 1, -#q, #q * #q, q[#q - 1])
