-- Nested table constructors, sharing and identity of tables.
local t = {
  name = "root",
  children = {
    {name = "a", children = {}},
    {name = "b", children = {{name = "b1", children = {}}}},
  },
  {1, {2, {3, {4}}}},
}
print(t.name, #t.children, t.children[1].name, t.children[2].children[1].name)
print(t[1][1], t[1][2][1], t[1][2][2][1], t[1][2][2][2][1])
local function walk(node, depth)
  print(string.rep("  ", depth) .. node.name)
  for _, c in ipairs(node.children) do walk(c, depth + 1) end
end
walk(t, 0)
-- Each evaluation of a constructor makes a new table.
local function make() return {} end
local a, b = make(), make()
print(a == b, a == a)
-- Tables are references: shared inner table.
local inner = {v = 1}
local outer = {inner, inner, x = inner}
outer[1].v = 42
print(outer[2].v, outer.x.v, inner.v)
-- A table may contain itself.
local self = {}
self.me = self
print(self.me.me.me == self)
-- Matrix built with nested constructors.
local m = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
for i = 1, 3 do
  local row = {}
  for j = 1, 3 do row[j] = m[j][i] end
  print(table.concat(row, " "))
end
-- Functions stored in constructors.
local ops = {add = function(x, y) return x + y end, sub = function(x, y) return x - y end,
  function(x) return -x end}
print(ops.add(2, 3), ops.sub(2, 3), ops[1](7))
-- Chained indexing on constructor results.
print(({10, 20, 30})[2], ({x = {y = "deep"}}).x.y, #{1, 2, 3, 4})
