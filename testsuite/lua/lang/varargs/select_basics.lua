-- select('#', ...) counts all arguments including trailing nils; select(n, ...)
-- returns the arguments from n on; negative n counts from the end (5.1.5); n = 0,
-- too negative, or non-numeric n is an error.
print(select("#"))
print(select("#", nil))
print(select("#", nil, nil, nil))
print(select("#", 1, nil))
print(select(1, "a", "b", "c"))
print(select(2, "a", "b", "c"))
print(select(3, "a", "b", "c"))
print(select(4, "a", "b", "c"))
print(select("#", select(4, "a", "b", "c")))
print(select(10, "a"))
print(select(-1, "a", "b", "c"))
print(select(-2, "a", "b", "c"))
print(select(-3, "a", "b", "c"))
print(pcall(select, -4, "a", "b", "c"))
print(pcall(select, 0, "a"))
print(pcall(select, "x", "a"))
print(pcall(select))
-- Numeric strings and floats as the index.
print(select("2", "a", "b", "c"))
print(select(2.7, "a", "b", "c"))
-- select in a function with varargs.
local function count(...) return select("#", ...) end
print(count(), count(nil), count(1, 2, 3), count(nil, nil))
local function last(...)
  local n = select("#", ...)
  if n == 0 then return nil end
  return (select(n, ...))
end
print(last(1, 2, 3), last("only"), last(), last(1, nil))
-- Iterating over varargs with select.
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...) or 0) end
  return s
end
print(sum(1, 2, 3, nil, 5))
-- select("#") with many arguments.
print(select("#", unpack({}, 1, 200)))
