-- lua5.1 converts numeric strings given as for-loop start, limit and step (LuaJIT and
-- later Lua versions raise an error instead).
local s = ""
for j = "2", "4" do s = s .. j .. " " end
print(s)
s = ""
for j = "10", 1, "-4.5" do s = s .. j .. " " end
print(s)
s = ""
for j = " 0x10 ", 17 do s = s .. j .. " " end
print(s)
