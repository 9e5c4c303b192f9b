-- Strings with an embedded NUL after a number.
print(tonumber("12\0"), tonumber("12\0abc"), tonumber("\0" .. "12"))
print("12\0" + 1)
