-- debug.getlocal / debug.setlocal: names and values of the locals in scope at the current
-- instruction, for-loop control variables with 5.1's names, levels, out-of-range levels.
-- (Only named locals are listed: 5.1 also numbers temporaries, which ljr does not report.)
local function show(level, count)
  local out = {}
  for i = 1, count do
    local name, value = debug.getlocal(level + 1, i)
    if type(value) == "function" or type(value) == "table" then value = type(value) end
    out[#out + 1] = tostring(name) .. "=" .. tostring(value)
  end
  return table.concat(out, " ")
end
local function f(a, b)
  local c = a + b
  do local inner = c * 2 print(show(1, 4)) end
  print(show(1, 3))
  for i = 1, 2 do print(show(1, 7)) end
  for k, v in pairs({x = 1}) do print(show(1, 8)) end
  local late
  print(show(1, 4))
  return c
end
f(1, 2)
local x, y = 10, "s"
print(show(1, 4))
print(pcall(debug.getlocal, 50, 1))
print(debug.getlocal(1, 0))
local function g() local z = 5 debug.setlocal(1, 1, 99) return z end
print(g())
local function h() local q = 1 local r = debug.setlocal(1, 1, 7) return q, r end
print(h())
local function params(p1, p2, ...) return debug.getlocal(1, 1), debug.getlocal(1, 2) end
print(params("one", "two", "three"))
