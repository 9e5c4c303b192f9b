-- A syntax error: nothing runs, not even the print on the first line.
print("not printed: the chunk does not compile")
local x = = 1
