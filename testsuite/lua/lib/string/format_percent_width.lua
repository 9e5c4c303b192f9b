-- string.format("%5%"): 5.1 treats "%5%" as a conversion that consumes an argument, so with
-- no argument left it reports "bad argument #2 (no value)" before the invalid option.
print(pcall(string.format, "%5%"))
print(pcall(string.format, "%-%"))
print(pcall(string.format, "%5%", 1))
print(pcall(function() return string.format("%d %5%", 1) end))
