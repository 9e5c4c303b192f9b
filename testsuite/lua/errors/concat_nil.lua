-- Concatenating an undefined global.
local greeting = "hello"
print(greeting .. " world")
print(greeting .. undefined_name)
