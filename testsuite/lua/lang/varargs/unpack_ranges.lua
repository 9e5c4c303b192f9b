-- unpack(t, i, j): default range 1..#t, explicit ranges including nils and ranges
-- outside the table, empty ranges; table.unpack does not exist in 5.1.
print(unpack({1, 2, 3}))
print(unpack({1, 2, 3}, 2))
print(unpack({1, 2, 3}, 2, 3))
print(unpack({1, 2, 3}, 3, 2))
print(select("#", unpack({1, 2, 3}, 3, 2)))
print(unpack({1, 2, 3}, -1, 1))
print(unpack({1, 2, 3}, 0, 4))
print(select("#", unpack({}, 1, 5)))
print(unpack({}))
print(select("#", unpack({})))
-- nils inside the range.
local t = {1, nil, 3}
print(unpack(t, 1, 3))
print(select("#", unpack({n = 3}, 1, 3)))
-- Non-integer bounds are truncated? (luaL_checkint truncates toward zero)
print(unpack({"a", "b", "c"}, 1.9, 2.9))
print(unpack({"a", "b", "c"}, "2", "3"))
-- Hash-part integer keys are found too.
local h = {}
h[3] = "c" h[1] = "a" h[2] = "b"
print(unpack(h, 1, 3))
-- With explicit n from a vararg function.
local function pack(...) return {n = select("#", ...), ...} end
local p = pack(nil, "x", nil)
print(p.n, unpack(p, 1, p.n))
-- unpack as a non-final argument gives one value.
print(unpack({1, 2}), unpack({3, 4}))
-- unpack of many values.
local big = {}
for i = 1, 1000 do big[i] = i end
print(select("#", unpack(big)), (select(1000, unpack(big))))
-- table.unpack is a 5.2 addition.
print(table.unpack, type(unpack))
-- Bad arguments.
print(pcall(unpack))
print(pcall(unpack, nil))
print(pcall(unpack, "abc"))
print(pcall(unpack, {}, "x"))
-- unpack does not use __index (raw access).
local proxied = setmetatable({}, {__index = function(_, k) return k * 10 end})
print(unpack(proxied, 1, 3))
