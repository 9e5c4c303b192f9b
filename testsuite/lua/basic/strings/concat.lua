-- Concatenation of strings and numbers (numbers are formatted with %.14g), its right
-- associativity, long chains, and building strings in loops.
local a, b = "foo", "bar"
print(a .. b, a .. " " .. b, "" .. a .. "", a .. "" .. b)
print(1 .. 2, 1 .. "", "" .. 1.25, 3 .. "x" .. 4, -1 .. -2)
print(0.1 .. "|" .. 1e100 .. "|" .. 1/3 .. "|" .. 2^63)
local n = 42
print("n=" .. n, n .. "=n", n .. n, (n .. n) + 1)
-- A chain of many operands is one expression.
print("a" .. "b" .. "c" .. "d" .. "e" .. "f" .. "g" .. "h" .. "i" .. "j" .. 1 .. 2 .. 3)
local s = ""
for i = 1, 10 do s = s .. i .. "," end
print(s, #s)
local r = ""
for i = 1, 5 do r = i .. r end
print(r)
-- Doubling: length grows exponentially and stays exact.
local d = "ab"
for i = 1, 10 do d = d .. d end
print(#d, #(d .. d .. "x"))
local nul = "a\0b"
local both = nul .. nul
print(#both, both == "a\0ba\0b")
