-- Traversal with next/pairs/ipairs. Hash order is unspecified, so keys are sorted
-- before printing; ipairs order is defined (1, 2, ... up to the first nil).
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  return table.concat(ks, ",")
end
print(next({}))
print(next({}, nil))
local one = {x = 5}
print(next(one))
print(next(one, "x"))
local t = {10, 20, 30, a = 1, b = 2, [5] = 50}
print(sorted_keys(t))
-- ipairs stops at the first hole.
for i, v in ipairs(t) do print("ipairs", i, v) end
-- ipairs on a table with t[1] == nil does nothing.
local n = 0
for _ in ipairs({nil, 2, 3}) do n = n + 1 end
print("ipairs from nil", n)
-- pairs returns an iterator, the table and nil.
local f, s, c = pairs(t)
print(type(f), s == t, c)
-- ipairs returns an iterator, the table and 0.
local g, s2, c2 = ipairs(t)
print(type(g), s2 == t, c2)
print(g(t, 0))
print(g(t, 2))
print((g(t, 3)))
-- Generic for with next directly.
local cnt = 0
for k, v in next, t do cnt = cnt + 1 end
print("count", cnt)
-- Clearing fields during traversal is allowed.
local big = {}
for i = 1, 100 do big["k" .. i] = i end
for k in pairs(big) do big[k] = nil end
print("after clear", next(big))
-- Assigning to existing fields during traversal is allowed.
local upd = {a = 1, b = 2, c = 3}
for k, v in pairs(upd) do upd[k] = v * 10 end
print(upd.a, upd.b, upd.c)
-- Sum over pairs does not depend on order.
local sum = 0
for k, v in pairs({1, 2, 3, x = 4, y = 5}) do sum = sum + v end
print("sum", sum)
-- Traversal visits each key exactly once.
local seen, dup = {}, false
local mix = {}
for i = 1, 50 do mix[i] = i; mix["s" .. i] = i; mix[i + 0.5] = i end
local total = 0
for k in pairs(mix) do
  if seen[k] then dup = true end
  seen[k] = true
  total = total + 1
end
print("visited", total, dup)
-- ipairs on strings via a table built from bytes.
local bytes = {("hello"):byte(1, -1)}
for i, b in ipairs(bytes) do io.write(i, "=", string.char(b), " ") end
print()
