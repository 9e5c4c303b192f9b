-- file:read("*l") in 5.1 reads with fgets and measures with strlen, so a line holding a NUL
-- byte loses the rest of that line and runs on into the next one.
local name = os.tmpname()
local f = assert(io.open(name, "wb"))
f:write("zero\0byte\n", "next line\n", "last\n")
f:close()
f = assert(io.open(name, "rb"))
local z = f:read("*l")
print(#z, string.format("%q", z))
print(f:read("*l"))
f:close()
for line in io.lines(name) do print(#line, (string.gsub(line, "%z", "\\0"))) end
os.remove(name)
