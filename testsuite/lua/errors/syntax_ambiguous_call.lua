-- Lua 5.1 rejects a call whose parenthesised arguments start on a new line: it is
-- ambiguous with a new statement starting with a parenthesis.
local f = print
local x = f
("called?")
