-- table.insert with four arguments: "wrong number of arguments to 'insert'", located at the
-- call inside a helper function.
local function add_all(t, ...)
  table.insert(t, ...)
  return #t
end
local list = {}
print(add_all(list, "a"))
print(add_all(list, 1, "b"))
print(add_all(list, 1, "c", "d"))
