-- Lua 5.4 local attributes (<const>, <close>) are not Lua 5.1 syntax.
local ok = 1
print(ok)
local limit <const> = 10
print(limit)
