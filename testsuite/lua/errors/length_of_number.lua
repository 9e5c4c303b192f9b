-- The length operator applies to strings (and tables), not numbers.
local s = "abc"
print(#s)
local n = 12345
print(#n)
