-- table.concat over a list holding a table: an uncaught "invalid value ... in table for
-- 'concat'" error located at the call.
local parts = {"a", "b"}
print(table.concat(parts, ","))
parts[3] = {}
print(table.concat(parts, ","))
