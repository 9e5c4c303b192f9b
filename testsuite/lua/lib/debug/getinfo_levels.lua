-- debug.getinfo by level through nested calls: each level's what/currentline/name/namewhat,
-- the number of levels added by nested calls, and pcall and table.sort appearing as "C"
-- levels between Lua functions.
local function describe(level)
  local i = debug.getinfo(level + 1, "Sln")
  if not i then return "none" end
  return string.format("%s:%s:%s:%s", i.what, tostring(i.currentline), tostring(i.name), tostring(i.namewhat))
end
local function c3() return describe(1) .. " | " .. describe(2) .. " | " .. describe(3) .. " | " .. describe(4) end
local function c2() local r = c3() return r end
local function c1() local r = c2() return r end
print(c1())
local function depth()
  local n = 0
  while debug.getinfo(n + 1, "S") do n = n + 1 end
  return n
end
local d0 = depth()
local function nest(k) if k == 0 then local r = depth() return r end local r = nest(k - 1) return r end
print(nest(3) - d0, nest(0) - d0)
print(select(2, pcall(function() local r = describe(1) .. " | " .. describe(2) return r end)))
local function via_sort()
  local seen
  table.sort({2, 1}, function(a, b) seen = seen or (describe(1) .. " | " .. describe(2)) return a < b end)
  return seen
end
print(via_sort())
