-- debug.getlocal/debug.setlocal: names and values of parameters and locals of the current
-- function and of its caller by level, an index beyond the locals (nothing there: nil),
-- changing a local in the caller, and a level beyond the stack ("level out of range").
local function f(a, b)
  local c = a + b
  local n1, v1 = debug.getlocal(1, 1)
  local n2, v2 = debug.getlocal(1, 2)
  local n3, v3 = debug.getlocal(1, 3)
  print(n1, v1, n2, v2, n3, v3)
  local cn, cv = debug.getlocal(2, 1)
  print("caller", cn, cv)
  local set = debug.setlocal(2, 1, "changed")
  print("set", set)
  return c
end
local function caller()
  local outer_local = "original"
  local r = f(1, 2)
  return r, outer_local
end
print(caller())
local function beyond() local x = 1 return debug.getlocal(1, 5) end
print(beyond())
local function g() local z = 5 local name = debug.setlocal(1, 1, 99) return z, name end
print(g())
print(pcall(debug.getlocal, 100, 1))
print(pcall(debug.setlocal, 100, 1, 1))
print(pcall(debug.getlocal))
