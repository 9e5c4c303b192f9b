-- String keys: field syntax vs bracket syntax, strings built at run time find the same
-- entry, keys with arbitrary bytes, long strings as keys.
local t = {}
t.name = "a"
print(t["name"], t.name)
local k = "na" .. "me"
print(t[k])
t["with space"] = 1
t[""] = "empty"
t["a\0b"] = "nul"
print(t["with space"], t[""], t["a\0b"], t["a"])
-- Long key strings built different ways.
local long1 = string.rep("x", 100)
local long2 = string.rep("xx", 50)
t[long1] = "long"
print(t[long2], long1 == long2)
-- Keys differing only in case.
t.Key, t.key, t.KEY = 1, 2, 3
print(t.Key, t.key, t.KEY)
-- Numbers converted to strings are string keys.
t[tostring(12)] = "twelve"
print(t["12"], t[12])
-- Iterating over string keys (sorted).
local s = {banana = 3, apple = 1, cherry = 2, date = 4}
local keys = {}
for key, _ in pairs(s) do keys[#keys + 1] = key end
table.sort(keys)
for _, key in ipairs(keys) do print(key, s[key]) end
-- Deleting string keys.
s.banana = nil
local n = 0
for _ in pairs(s) do n = n + 1 end
print(n, s.banana)
-- Many string keys.
local many = {}
for i = 1, 500 do many["k" .. i] = i end
local sum = 0
for key, v in pairs(many) do sum = sum + v end
print(sum, many.k1, many.k250, many.k500, many.k501)
for i = 1, 500, 2 do many["k" .. i] = nil end
sum = 0
for key, v in pairs(many) do sum = sum + v end
print(sum)
