-- string.gfind is 5.1's compatibility name of gmatch (LUA_COMPAT_GFIND): the same function.
print(string.gfind == string.gmatch)
for k, v in string.gfind("a=1, b=2", "(%w+)=(%w+)") do print(k, v) end
print(pcall(string.gfind))
