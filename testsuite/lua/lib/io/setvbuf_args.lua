-- file:setvbuf checks its arguments: a mode other than "no", "full" and "line" is an
-- invalid option, the mode is required and the size must be a number.
print(pcall(io.stdout.setvbuf, io.stdout, "bogus"))
print(pcall(function() return io.stdout:setvbuf("") end))
print(pcall(function() return io.stdout:setvbuf() end))
print(pcall(function() return io.stdout:setvbuf("line", "x") end))
