-- debug.getupvalue / debug.setupvalue with no arguments: 5.1 checks the index (argument #2)
-- before the function.
print(pcall(debug.getupvalue))
print(pcall(debug.setupvalue))
print(pcall(function() return debug.getupvalue(nil) end))
