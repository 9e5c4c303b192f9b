-- Values of every kind against each other: `==`, `~=`, `rawequal`, `type`, and as table keys.
-- `__eq` is only asked for two tables or two userdata, never across kinds (a table and a
-- userdata sharing a metatable, a thread, a function), whichever side is a constant.
local calls = 0
local mt = { __eq = function(a, b) calls = calls + 1; return true end }
local t1, t2 = setmetatable({}, mt), setmetatable({}, mt)
local u1 = newproxy(true)
getmetatable(u1).__eq = mt.__eq
local u2 = newproxy(u1)
local co = coroutine.create(function() end)
local f = function() end
local values = { nil, false, true, 0, -0, 1.5, 0/0, "", "s", t1, t2, u1, u2, co, f, print, io.stdout }
local n = 17
for i = 1, n do
  local a = values[i]
  local row = {}
  for j = 1, n do
    local b = values[j]
    row[#row + 1] = (a == b and "=" or ".") .. (a ~= b and "!" or "_") .. (rawequal(a, b) and "r" or "-")
  end
  print(i, type(a), table.concat(row, " "))
end
print("__eq calls", calls)
-- Constants on the right: the specialised variants of the comparison.
for i = 1, n do
  local a = values[i]
  print(i, a == nil, a ~= nil, a == false, a == true, a == 0, a ~= 1.5, a == "s", a ~= "")
end
-- Every kind as a key, and back out through `next`.
local keys = {}
for i = 1, n do
  local k = values[i]
  if k ~= nil and k == k then keys[k] = i end
end
local count = 0
for k, v in pairs(keys) do
  count = count + 1
  assert(rawequal(values[v], k) or (v == 5 and k == 0), v)
end
print("keys", count, keys[t1], keys[u2], keys[co], keys[f], keys[print], keys[io.stdout], keys["s"], keys[0])
-- A table and a userdata with the same metatable, either side first.
local t3 = setmetatable({}, getmetatable(u1))
print(t3 == u1, u1 == t3, t3 ~= u1, u1 ~= t3, calls)
