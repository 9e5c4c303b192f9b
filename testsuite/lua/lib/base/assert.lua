-- assert: returns all its arguments when the first is true, raises "assertion failed!" or
-- the given string message otherwise, and checks its argument count.
print(assert(1, 2, 3))
print(assert("x"))
print(assert(0), assert(""), assert({}) ~= nil)
print(select("#", assert(true, nil, nil)))
print(pcall(assert, false))
print(pcall(assert, nil))
print(pcall(assert, false, "custom message"))
print(pcall(assert, false, nil))
print(pcall(assert))
print(pcall(function() assert(1 == 2) end))
local function maybe(v) if v then return v, "extra" end return nil, "failed: " .. tostring(v) end
print(assert(maybe(5)))
