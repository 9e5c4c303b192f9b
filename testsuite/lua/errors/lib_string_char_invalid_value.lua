-- string.char with a value above 255: "bad argument #3 to 'char' (invalid value)".
print(string.char(72, 105))
local codes = {76, 117, 300}
print(string.char(unpack(codes)))
