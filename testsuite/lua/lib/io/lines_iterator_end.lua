-- The io.lines(filename) iterator at end of file: it closes the file and returns no values
-- (not nil); calling it again raises "file is already closed".
local name = os.tmpname()
local f = assert(io.open(name, "w"))
f:write("a\nb\n")
f:close()
local it = io.lines(name)
print(it(), it())
print(select("#", it()))
print(pcall(it))
print(pcall(it))
os.remove(name)
