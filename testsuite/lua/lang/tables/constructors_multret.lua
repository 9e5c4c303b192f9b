-- A call or `...` as the last positional field expands to all its results; anywhere
-- else (or in parentheses, or as a keyed value) it is truncated to one value.
local function three() return 1, 2, 3 end
local function none() end
local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end
local a = {three()}
print(#a, a[1], a[2], a[3])
local b = {three(), three()}
print(#b, b[1], b[2], b[3], b[4])
local c = {(three())}
print(#c, c[1], c[2])
local d = {three(), 10}
print(#d, d[1], d[2], d[3])
local e = {0, three()}
print(#e, e[1], e[2], e[3], e[4])
local f = {none()}
print(#f, count(f))
local g = {1, none()}
print(#g, count(g))
local h = {x = three()}
print(h.x, count(h))
local i = {three(), x = 9}
print(#i, i[1], i[2], i.x)
-- A call expanding after a keyed field.
local j = {x = 1, three()}
print(#j, j[1], j[3], j.x)
-- Varargs in constructors.
local function pack(...) return {...} end
local function pack2(...) return {..., "end"} end
local function pack3(...) return {"start", ...} end
local p = pack(4, 5, 6)
print(#p, p[1], p[3])
local p2 = pack2(4, 5, 6)
print(#p2, p2[1], p2[2], p2[3])
local p3 = pack3(4, 5, 6)
print(#p3, p3[1], p3[2], p3[4])
print(#pack(), #pack3())
-- Varargs containing nils: the values keep their positions.
local q = pack(nil, 2, nil, 4)
print(q[1], q[2], q[3], q[4], select("#", unpack(q, 1, 4)))
-- Many results from a function (more than a SETLIST batch).
local function many(n)
  local r = {}
  for k = 1, n do r[k] = k * k end
  return unpack(r)
end
local big = {many(120)}
print(#big, big[1], big[50], big[51], big[120])
local big2 = {0, 0, many(75)}
print(#big2, big2[3], big2[77])
-- Method calls also expand.
local obj = {vals = function(self) return "m1", "m2" end}
local mt = {obj:vals()}
print(#mt, mt[1], mt[2])
-- String method call as last field.
local sb = {("abc"):byte(1, -1)}
print(#sb, sb[1], sb[2], sb[3])
