-- load's reader must return strings: numbers are accepted as pieces (converted), other
-- values raise "reader function must return a string" with the caller's position, which
-- load returns as its message (only the first line is printed: lua.c's message handler
-- also appends a traceback).
local function reader(pieces)
  local i = 0
  return function() i = i + 1 return pieces[i] end
end
local function first(f, msg) return f, msg and (string.match(msg, "^[^\n]*")) end
print(first(load(function() return {} end)))
print(first(load(reader({"return 1", true}))))
local f = load(reader({"return ", 42}))
print(type(f), f and f())
f = load(reader({"return 1", 0}))
print(type(f))
