-- __len is used for userdata (newproxy): results truncated to one value, the operand is
-- passed, and userdata without __len cannot be measured.
local u = newproxy(true)
getmetatable(u).__len = function(self, other) return 7, "extra" end
print(#u)
local n = #u
print(n)
local got
local u2 = newproxy(true)
getmetatable(u2).__len = function(self) got = self return 1 end
print(#u2, got == u2)
local u3 = newproxy(true)
print(pcall(function() return #u3 end))
local u4 = newproxy(false)
print(pcall(function() return #u4 end))
