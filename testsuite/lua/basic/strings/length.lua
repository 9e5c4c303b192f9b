-- The length operator on strings counts bytes: escapes count once, embedded zeros and
-- bytes >= 128 count, and the result is a number usable in arithmetic.
print(#"", #"a", #"hello", #"hello world")
print(#"\n", #"\0", #"a\0b", #"\255\254", #"\65\66", #"\\")
print(#[[
line1
line2]], #[==[]==])
local s = "abcdef"
print(#s, #s * 2, #s - #"abc", -#s, #s == 6)
print(#(s .. s), #s .. #s, #(#s .. ""))
local u = "h\195\169llo"
print(#u)
local t = ""
local lens = ""
for i = 1, 5 do
  t = t .. "xy"
  lens = lens .. #t .. " "
end
print(lens)
