-- table.insert(t, v) is generated code: a push where #t needs no search and the array part has
-- room, the native function otherwise. Each case against 5.1: the push is a raw set (no
-- __newindex, no __len), a nil value, holes at the end, a hash part, growth past every
-- capacity, the position form, and every error.
local function show(t, n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = tostring(rawget(t, i)) end
  print(#t, table.concat(parts, ","))
end

-- pushes across the array part's growth
local t = {}
for i = 1, 40 do table.insert(t, i * 2) end
show(t, 41)
-- values of every type
local f = function() end
local u = {}
for _, v in ipairs({true, false, "s", 1.5, -0.0, f, u, coroutine.create(f)}) do table.insert(u, v) end
print(#u, type(u[6]), u[1], u[2], u[3], u[4], 1 / u[5])
-- a nil value
local n = {1, 2, 3}
table.insert(n, nil)
show(n, 5)
-- a hole at the end: #t searches for a border
local h = {1, 2, 3, nil, 5}
h[5] = nil
table.insert(h, "x")
show(h, 6)
-- a hash part (string keys, and integer keys past the array part)
local m = {a = 1, b = 2}
table.insert(m, "first")
table.insert(m, "second")
show(m, 3)
print(m.a, m.b)
local sparse = {}
sparse[100] = "far"
table.insert(sparse, "near")
show(sparse, 2)
print(sparse[100])
-- a raw set: __newindex and __index are not consulted, __len neither (5.1 has no __len for tables)
local log = {}
local mt = {__newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end,
            __index = function(t, k) return "default" end,
            __len = function() return 99 end}
local o = setmetatable({}, mt)
table.insert(o, "a")
table.insert(o, "b")
show(o, 3)
print(#log, o[3])
-- the position form (native), in the middle and at both ends
local p = {1, 2, 3}
table.insert(p, 1, "head")
table.insert(p, 3, "mid")
table.insert(p, #p + 1, "tail")
show(p, 7)
-- errors, by position and count
print(pcall(table.insert))
print(pcall(table.insert, nil, 1))
print(pcall(table.insert, "s", 1))
print(pcall(table.insert, {}))
print(pcall(table.insert, {}, 1, 2, 3))
print(pcall(table.insert, {}, "x", 2))
-- 5.1 has no bounds on the position: 0 and negative positions shift what lies above them
local z = {1, 2}
table.insert(z, 0, "zero")
print(z[-1], z[0], z[1], z[2], z[3])
local neg = {}
table.insert(neg, -2, "minus")
print(neg[-2], neg[-1], neg[0], neg[1], #neg)
local far = {1}
table.insert(far, 5, "five")
print(far[2], far[5], #far == 1 or #far == 5)
-- after removes, pushes reuse the array part
local r = {}
for i = 1, 10 do table.insert(r, i) end
for i = 1, 4 do table.remove(r) end
for i = 1, 3 do table.insert(r, -i) end
show(r, 10)
-- a frozen-length loop: each insert sees the previous one
local acc = {}
for i = 1, 1000 do table.insert(acc, i % 7) end
local sum = 0
for i = 1, #acc do sum = sum + acc[i] end
print(#acc, sum)
