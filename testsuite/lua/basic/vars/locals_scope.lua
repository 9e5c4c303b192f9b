-- Local variables: block scope (do/end, loops, if branches), shadowing, redeclaration in
-- the same block, and initialisation from an outer variable of the same name.
local x = 1
print("outer", x)
do
  local x = 2
  print("inner", x)
  do
    local x = x + 10
    print("innermost", x)
  end
  print("inner again", x)
end
print("outer again", x)
-- Redeclaring in the same scope creates a new variable; the old value is used first.
local y = 5
local y = y * 2
print("redeclared", y)
-- A local without initialiser is nil, even when an outer one has a value.
local z = "outer z"
do
  local z
  print("uninitialised", z)
end
print("z", z)
-- Several locals in one statement.
local a, b, c = 1, 2
print("a b c", a, b, c)
local d, e = 1, 2, 3
print("d e", d, e)
-- Locals in if branches do not leak.
local w = "outside"
if true then local w = "branch" print(w) end
print(w)
-- Assignments inside a block update the outer variable when not shadowed.
local counter = 0
do counter = counter + 1 end
for i = 1, 3 do counter = counter + i end
print("counter", counter)
-- A local shadowing a global.
g = "global"
do
  local g = "local"
  print(g)
end
print(g)
-- Many live locals at once.
local l1, l2, l3, l4, l5, l6, l7, l8, l9, l10 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local l11, l12, l13, l14, l15, l16, l17, l18, l19, l20 = 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
print(l1 + l2 + l3 + l4 + l5 + l6 + l7 + l8 + l9 + l10 + l11 + l12 + l13 + l14 + l15 + l16 + l17 + l18 + l19 + l20)
print(l20 - l1, l10 * l11, l15 / l3, l19 % l7, l2 ^ l10)
