-- String ordering is byte-wise (lua5.1 uses strcoll in the C locale): shorter prefix
-- first, uppercase before lowercase, digits before letters, bytes >= 128 after ASCII,
-- and embedded NULs are compared as bytes too.
print("basic", "a" < "b", "b" < "a", "a" < "a", "a" <= "a", "abc" < "abd")
print("prefix", "" < "a", "ab" < "abc", "abc" > "ab", "" <= "")
print("case", "A" < "a", "Z" < "a", "a" < "B", "Zebra" < "apple")
print("digits", "10" < "9", "2" > "10", "1" < "a", " " < "0")
print("high bytes", "\127" < "\128", "\200" > "z", "\255" > "\254", "a\255" < "b")
print("nul", "a\0b" < "a\0c", "a\0" > "a", "a" < "a\0", "\0" < "\1", "a\0b" == "a\0b")
print("le/ge", "x" <= "y", "y" >= "x", "x" >= "x", "xa" >= "xb")
local s, t = "hello", "help"
print("locals", s < t, s > t, s == t, s ~= t, s .. "" == s)
-- Equal contents are equal strings whatever way they were built.
local built = "hel" .. "lo"
print(built == s, built <= s, built >= s, built < s)
