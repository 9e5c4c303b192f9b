-- Strings that look like numbers are converted for arithmetic (not for comparison):
-- decimal, with spaces around, exponents, hexadecimal; the result is a number.
print("10" + 1, "10" - 1, "10" * 2, "10" / 4, "10" % 3, "2" ^ "10")
print("3.5" + 0, ".5" + 0, "5." + 0, "1e2" + 0, "1E-2" + 0, "  42  " + 0, "\t7\n" + 0)
print("0x10" + 0, "0XfF" + 0, "0x0" + 1)
print("-3" + 0, "+3" + 0, "-0.5e1" + 0)
print(1 + "2" + 3, "1" + "2", "1" .. "2", ("1" .. "2") + 0)
local s, n = "20", 5
print(s + n, n + s, s * s, -s, s / n)
-- The result of coercion is a number: it prints with number formatting.
print("1.50" + 0, "007" + 0, "1e15" + 0, "123456789012345678" + 0)
-- Concatenation converts numbers to strings with %.14g.
print(1 .. "", 1.5 .. "", 0.1 .. "", 1e15 .. "", 2^53 .. "", -7 .. "")
local x = 10
local t = x .. ""
print(t + 1, t .. 1, #t, t == "10", x == t)
