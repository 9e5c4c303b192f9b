-- Concatenation converts numbers to strings with %.14g; `..` is right associative and
-- binds looser than arithmetic; a literal like `1..2` is a malformed number.
print(1 .. 2, 1 .. "", -1 .. "x", 1.5 .. 2.5, 2^53 .. "", 1e15 .. "", 1e-5 .. "")
print(0.1 + 0.2 .. "", 1/3 .. "", 100 / 3 .. "", -0.5 .. "")
print(1 + 2 .. 3 + 4, 2 * 3 .. "", "n=" .. 10 / 4)
print("a" .. "b" .. "c" .. 1 .. 2 .. 3)
local z = 0
print(-z .. "", 1/0 .. "", -1/0 .. "")
print(loadstring("return 1..2"))
print(loadstring("return 1 ..2")())
print(loadstring("return 1.. 2"))
-- Results are strings.
local s = 10 .. 20
print(type(s), s, s + 1)
-- Long chains and loops.
local parts = ""
for i = 1, 10 do parts = parts .. i .. (i < 10 and "," or "") end
print(parts, #parts)
local big = ""
for i = 1, 1000 do big = big .. "x" end
print(#big)
-- Concatenation with many operands in one expression.
local a, b, c, d, e = "a", 1, "c", 2.5, "e"
print(a .. b .. c .. d .. e .. a .. b .. c .. d .. e .. a .. b .. c .. d .. e)
-- Errors for non-string operands.
print(pcall(function() local t = {} return "x" .. t end))
print(pcall(function() local b = true return b .. "x" end))
print(pcall(function() return 1 .. nil end))
print(pcall(function() local f = print return "f" .. f end))
-- Embedded zeros survive concatenation (length counts them).
local zs = "a\0" .. "\0b"
print(#zs, zs:byte(1, -1))
-- table.concat coerces numbers too.
print(table.concat({1, 2.5, "x", 1e20}, "|"))
