-- Types of the operands __concat receives.
local mt = {__concat = function(a, b) return type(a) .. "|" .. type(b) end}
local A = setmetatable({}, mt)
local two = 2
print(A .. 2, A .. two, 2 .. A, two .. A, A .. 2.5)
print(A .. two .. two, A .. "x" .. 3)
