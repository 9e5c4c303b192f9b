-- Syntax errors keep the exact bytes of the chunk name and the token: a loadstring source
-- is any bytes, and its first line names the chunk in the message (errors.lua's "\255a = 1").
print(loadstring("\255a = 1"))
print(loadstring("x = '\255"))
print(loadstring("x = = 1", "\254name\255"))
print(loadstring("x = = 1", "=\254name\255"))
local s = "\255x = 1 +"
local i = 0
print(load(function() i = i + 1; return s:sub(i, i) end, s))
