-- Modulo with zero, infinite and NaN operands. Lua 5.1 computes a - floor(a/b)*b with no
-- special cases, so x % 0 and x % inf are NaN (5.3 would give x for the latter), and the
-- NaN signs follow from the IEEE operations of that formula on x86-64.
local zero, one = 0, 1
local inf, nan = one / zero, zero / zero
local function show(label, v)
  print(label, v)
end
show("5 % 0", 5 % zero)
show("-5 % 0", -5 % zero)
show("0 % 0", zero % zero)
show("5 % inf", 5 % inf)
show("-5 % inf", -5 % inf)
show("5 % -inf", 5 % -inf)
show("inf % 2", inf % 2)
show("-inf % 2", -inf % 2)
show("inf % inf", inf % inf)
show("nan % 2", nan % 2)
show("2 % nan", 2 % nan)
show("-nan % 2", -nan % 2)
show("0 % 5", zero % 5)
show("-0 % 5", -zero % 5)
show("0 % -5", zero % -5)
