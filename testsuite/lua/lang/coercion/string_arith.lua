-- String operands in arithmetic are converted with the same rules as tonumber (base
-- 10, hex, exponents, surrounding whitespace); the result is always a number; strings
-- that don't convert are an error naming the operand.
local function try(f) local ok, r = pcall(f) print(ok, ok and type(r) or "", r) end
try(function() return "10" + 0 end)
try(function() return " 0x1A " * 1 end)
try(function() return "1e1" - "1" end)
try(function() return "-.5" * 4 end)
try(function() return "2" ^ "0.5" end)
try(function() return "7" % "-3" end)
try(function() return -"3" end)
try(function() return -" -3 " end)
-- Non-numeric strings.
try(function() local s = "abc" return s + 1 end)
try(function() local s = "" return s + 1 end)
try(function() local s = " " return 1 * s end)
try(function() local s = "1 2" return s + 0 end)
try(function() local s = "1e" return s + 0 end)
try(function() local s = "0x" return s + 0 end)
try(function() local s = "1,5" return s + 0 end)
try(function() local s = "one" return -s end)
try(function() return "10" + {} end)
-- Numeric strings stay strings when not used arithmetically.
local s = "10"
print(type(s), s == 10, s .. 1, #s)
local n = s + 0
print(type(n), n == 10)
-- Coercion in library functions expecting numbers.
print(math.floor("3.7"), math.max("10", 9), string.rep("ab", "3"), ("x"):rep("2"))
print(string.sub("hello", "2", "3"), string.char("65", "66"))
-- Coercion of numbers where strings are expected.
print(string.len(12345), string.upper(1e3), string.rep(12, 2), string.format("%s|%d", 1.5, "42"))
print(pcall(function() return (12):rep(2) end))
-- for loop bounds are not coerced by arithmetic, but 5.1 accepts numeric strings.
local c = 0
for i = "1", "4", "1" do c = c + i end
print(c)
-- Number keys and string keys stay distinct even when the string converts.
local t = {}
t["1"] = "s"
t[1] = "n"
print(t["1"], t[1], t["1" + 0])
