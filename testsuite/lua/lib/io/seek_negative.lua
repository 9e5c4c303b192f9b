-- file:seek to a negative position fails like fseek: nil, "Invalid argument", 22 (EINVAL),
-- and the position is unchanged.
local name = os.tmpname()
local f = assert(io.open(name, "w+"))
f:write("0123456789")
f:seek("set", 4)
print(f:seek("set", -1))
print(f:seek("cur", -100))
print(f:seek())
f:close()
os.remove(name)
