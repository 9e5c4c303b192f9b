-- Calling a number held in a local.
local f = 42
print("f is", f)
f()
