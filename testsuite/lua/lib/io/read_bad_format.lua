-- io.read / file:read with a string format that does not start with "*" ("l", as 5.2 would
-- accept) or a nil format: 5.1 reports "invalid option" for both.
print(pcall(io.read, {}))
print(pcall(io.read, true))
print(pcall(io.read, "l"))
print(pcall(function() return io.stdin:read(nil) end))
