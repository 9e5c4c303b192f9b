-- string.dump's argument must be a function: other values are a bad argument #1.
print(pcall(string.dump, 1))
print(pcall(string.dump))
print(pcall(function() return string.dump("f") end))
