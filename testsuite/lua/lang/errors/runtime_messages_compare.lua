-- Comparison errors: ordering values of different types or of types without an order
-- names both types ("attempt to compare number with nil", "two table values"); equality
-- never fails.
local function try(f) local ok, e = pcall(f) print(ok, e) end
try(function() return {} < {} end)
try(function() return {} <= {} end)
try(function() return {} > {} end)
try(function() return 1 < nil end)
try(function() return nil < 1 end)
try(function() local n; return 5 >= n end)
try(function() return 1 < "2" end)
try(function() return "2" < 1 end)
try(function() return "a" <= {} end)
try(function() return true < false end)
try(function() return print < print end)
try(function() return {} < 1 end)
try(function() return coroutine.create(function() end) < 1 end)
try(function() return nil > nil end)
-- Equality between different types is just false.
print(1 == "1", {} == {}, nil == false, print == print, "a" == "a")
print(1 ~= "1", 0 == false, "" == nil)
-- Numbers and strings compare within their type.
print(1 < 2, "a" < "b", "10" < "9", 10 < 9, "" < "a", "Z" < "a")
print(2 <= 2, "abc" <= "abd", "abc" >= "ab")
