-- lua5.1's print writes each argument with fputs, so output of a string stops at its
-- first NUL byte even though the string itself is longer.
local s = "ab\0cd"
print(s, #s)
print("\0hidden", "after")
print("x" .. "\0" .. "y", #("x" .. "\0" .. "y"))
