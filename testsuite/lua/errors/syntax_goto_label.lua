-- `goto` is an ordinary name in Lua 5.1 and `::label::` is not a statement.
local goto = "a variable named goto"
print(goto)
::top::
print("unreachable")
