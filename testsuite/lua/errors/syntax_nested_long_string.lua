-- Lua 5.1 rejects [[ inside a level-0 long string ("nesting of [[...]] is deprecated");
-- later versions accept it.
print("not printed")
local s = [[ outer [[ inner ]] ]]
