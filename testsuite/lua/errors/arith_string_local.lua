-- A string that does not look like a number cannot be coerced; the message names the
-- local and the type of its value.
local ok = "10" + 5
print("coerced", ok)
local s = "ten"
print(s + 5)
