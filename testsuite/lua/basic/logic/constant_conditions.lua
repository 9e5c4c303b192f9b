-- Conditions and `not` over constants fold away as in 5.1, so these constants never enter the
-- constant table (where 0 and -0 share an entry); unfoldable constant arithmetic still runs.
local function a() if (-0) then end return 0 end
print(a())
local function b() print((not 0), (-0)) end b()
local function c() local x = not 1; print(x, -0) end c()
local function d() local i = 1; print(i, ((0/0) and nil or (-0))) end d()
print(pcall(function() return ("a" + 1) and nil or 5 end))
print(pcall(function() local x = (#1e300) and nil or 7; return x end))
print(pcall(function() return (1 < "x") or 3 end))
print(not nil, not false, not "", not (1 and nil))
