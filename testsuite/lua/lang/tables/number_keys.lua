-- Numeric keys: a float with an integral value is the same key as the integer, so
-- t[1] and t[1.0] are one slot; non-integral floats are distinct keys; strings that
-- look like numbers are different keys from numbers.
local t = {}
t[1] = "int"
print(t[1.0], t[1])
t[1.0] = "float"
print(t[1], #t)
t[2^1] = "two"
print(t[2], #t)
t[3 / 1] = "three"
print(t[3], #t)
t[0.5] = "half"
print(t[0.5], t[1 / 2], #t)
-- Computed integral floats.
local k = 0.1 * 10
print(k == 1, t[k])
local x = 10 / 2
t[x] = "five"
print(t[5])
-- Strings are not numbers as keys.
t["1"] = "string one"
print(t[1], t["1"], t[tonumber("1")])
t["10"] = "s10"
print(t[10], t["10"])
-- Negative and zero keys.
t[0] = "zero"
t[-1] = "minus one"
print(t[0], t[-1], t[-1.0])
-- Negative zero is the same key as zero.
local z = 0
print(t[-z], t[0 * -1])
-- Large integers and powers of two.
t[2^31] = "big"
t[2^53] = "huge"
print(t[2147483648], t[2^53], t[9007199254740992])
-- Float keys near integers.
t[1 + 1e-12] = "near one"
print(t[1], t[1 + 1e-12])
-- Counting entries.
local keys = {}
for key in pairs(t) do keys[#keys + 1] = tostring(key) .. ":" .. type(key) end
table.sort(keys)
print(table.concat(keys, " "))
-- Infinity is a valid key.
local inf = 1 / 0
t[inf] = "inf"
t[-inf] = "-inf"
print(t[inf], t[-inf], t[1 / 0])
