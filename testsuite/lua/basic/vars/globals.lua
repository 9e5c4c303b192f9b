-- Global variables: undefined globals read as nil, assignment creates them, assigning nil
-- removes them, and globals are shared between the main chunk and functions.
print("undefined", undefined_global, undefined_global == nil)
counter = 10
print("created", counter)
counter = counter + 5
print("updated", counter)
counter = nil
print("removed", counter)
function bump(n)
  total = (total or 0) + n
end
bump(5)
bump(7)
print("via function", total)
function read_total()
  return total
end
total = 100
print("function sees new value", read_total())
-- Global and local of the same name are different variables: the function was defined
-- before the local, so its `name` is the global.
name = "global"
function show_name() return name end
local name = "local"
print(name, show_name())
name = "local changed"
print(name, show_name())
-- Globals can hold any value, including functions.
greet = print
greet("greeted via global")
x, y = 1, 2
x, y = y, x
print("swapped globals", x, y)
