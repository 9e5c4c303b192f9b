-- os.clock (a non-negative number that does not go backwards), os.getenv (HOME is a string,
-- unset variables give nil, the argument must be a string), and os.tmpname (a fresh name
-- each call; the file is created, so it is removed here).
local c1 = os.clock()
local x = 0
for i = 1, 100000 do x = x + i end
local c2 = os.clock()
print(type(c1), c1 >= 0, c2 >= c1)
print(type(os.getenv("HOME")), os.getenv("LJR_SURELY_UNSET_VARIABLE_12345"))
print(type(os.getenv("PATH")))
print(pcall(os.getenv))
print(pcall(os.getenv, {}))
print(os.getenv(""))
local n1, n2 = os.tmpname(), os.tmpname()
print(type(n1), n1 ~= n2, #n1 > 0)
local f = io.open(n1, "r")
print("exists", f ~= nil)
if f then f:close() end
print(os.remove(n1), os.remove(n2))
