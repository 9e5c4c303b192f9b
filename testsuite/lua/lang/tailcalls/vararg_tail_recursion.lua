-- Deep tail recursion (a million calls) of vararg functions, with and without extra
-- arguments, with the varargs forwarded, and with a varying number of them, runs in
-- constant stack.
local function v1(n, ...)
  if n == 0 then return select("#", ...) end
  return v1(n - 1, 1)
end
print(pcall(v1, 1000000))
local function v2(n, ...)
  if n == 0 then return "done" end
  return v2(n - 1)
end
print(pcall(v2, 1000000))
local function v3(...)
  local n = ...
  if n == 0 then return "done3" end
  return v3(n - 1)
end
print(pcall(v3, 1000000))
local function v4(n, ...)
  if n == 0 then return "done4" end
  return v4(n - 1, ...)
end
print(pcall(v4, 1000000, "a", "b"))
local function vary(n, ...)
  if n == 0 then return select("#", ...) end
  if n % 2 == 0 then return vary(n - 1, 1) end
  return vary(n - 1, 1, 2, 3)
end
print(vary(1000001))
