-- Calling a method that does not exist names the method.
local Stack = {}
Stack.__index = Stack
function Stack.new() return setmetatable({n = 0}, Stack) end
function Stack:push(v) self.n = self.n + 1 self[self.n] = v end
local s = Stack.new()
s:push(1)
s:push(2)
print(s.n)
s:pop()
