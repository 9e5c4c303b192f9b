-- Named fields given nil in a constructor: the key is absent for every reader (pairs, next,
-- rawget, `#`, `__index`, `__newindex`), whichever fields were nil, and fields given a value
-- later behave as ever.
local function keys(t)
  local ks = {}
  for k, v in pairs(t) do ks[#ks + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(ks)
  return table.concat(ks, " ")
end
local function make(a, b, c) return { a = a, b = b, c = c } end
local t1, t2, t3 = make(1, nil, 3), make(nil, nil, nil), make(nil, 2, nil)
print(keys(t1), "|", keys(t2), "|", keys(t3))
print(next(t2), rawget(t1, "b"), t1.b, #t1, #t2)
t2.b = "x"
t1.b = "y"
print(keys(t1), "|", keys(t2), next(t2))
t1.a, t1.b, t1.c = nil, nil, nil
print(next(t1), keys(t1))

-- `__newindex` and `__index` see a field a constructor gave nil as absent.
local log = {}
local mt = {
  __index = function(t, k) return "default " .. k end,
  __newindex = function(t, k, v) log[#log + 1] = k .. "=" .. tostring(v); rawset(t, k, v) end,
}
local objs = {}
for i = 1, 5 do objs[i] = setmetatable(make(i, nil, i % 2 == 0 and i or nil), mt) end
for i = 1, 5 do objs[i].b = i * 10 end
for i = 1, 5 do objs[i].c = i * 100 end
print(table.concat(log, ","))
print(objs[1].b, objs[2].c, objs[3].c, setmetatable(make(), mt).a)

-- A class whose instances are built with nil fields, then filled: methods see them.
local Tcb = {}
Tcb.__index = Tcb
function Tcb.new(link, queue) return setmetatable({ link = link, queue = queue, state = 0 }, Tcb) end
function Tcb:push(p) if self.queue == nil then self.queue = p else self.queue = { p, self.queue } end end
local list
for i = 1, 10 do list = Tcb.new(list, i % 3 == 0 and i or nil) end
local n, queued = 0, 0
local c = list
while c do
  n = n + 1
  c:push(n)
  if type(c.queue) == "table" then queued = queued + 1 end
  c = c.link
end
print(n, queued, list.queue, keys(Tcb.new()))

-- Duplicate keys, the last one nil; a nil among many keys (past the inline slots); positional
-- and keyed entries mixed in.
local d = { x = 1, x = nil, y = 2, [1] = "one", "first", z = nil }
print(keys(d), d.x, d[1], #d)
local big = { k1 = 1, k2 = nil, k3 = 3, k4 = nil, k5 = 5, k6 = nil, k7 = 7, k8 = nil, k9 = 9,
  k10 = nil, k11 = 11, k12 = nil, k13 = 13, k14 = nil, k15 = 15, k16 = nil, k17 = 17, k18 = nil,
  k19 = 19, k20 = nil, k21 = 21, k22 = nil, k23 = 23, k24 = nil, k25 = 25, k26 = nil, k27 = 27 }
local count = 0
for _ in pairs(big) do count = count + 1 end
big.k2, big.k26 = "two", "twenty-six"
count2 = 0
for _ in pairs(big) do count2 = count2 + 1 end
print(count, count2, big.k2, big.k4, big.k27)
-- `next` walks past the nil fields from any present key.
local walk = { p = nil, q = 1, r = nil, s = 2, t = nil }
local k, v = next(walk)
local seen = 0
while k do seen = seen + v; k, v = next(walk, k) end
print(seen)
