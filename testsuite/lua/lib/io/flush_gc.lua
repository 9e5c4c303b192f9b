-- io.flush() (flushes the default output file and returns true) and the file metatable's
-- __gc field, both part of 5.1's io library.
io.write("pending output ")
print(io.flush())
print(type(getmetatable(io.stdout).__gc))
local saved = io.output()
local name = os.tmpname()
io.output(name)
io.write("to file")
print(io.flush())
io.output():close()
io.output(saved)
local f = io.open(name) print(f:read("*a")) f:close()
os.remove(name)
