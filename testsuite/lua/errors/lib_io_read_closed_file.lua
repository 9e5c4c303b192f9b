-- Reading from a file after closing it: "attempt to use a closed file".
local name = os.tmpname()
local f = assert(io.open(name, "w"))
f:write("data\n")
f:close()
os.remove(name)
print(io.type(f))
local line = f:read("*l")
print("not reached", line)
