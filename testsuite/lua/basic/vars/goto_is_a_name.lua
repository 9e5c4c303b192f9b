-- `goto` became a keyword in Lua 5.2 (and LuaJIT 2.x); in Lua 5.1 it is an ordinary name.
goto = "a global named goto"
print(goto)
local goto = 5
print(goto + 1)
