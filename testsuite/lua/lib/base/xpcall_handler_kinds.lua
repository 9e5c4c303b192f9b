-- xpcall's handler must be a function: when the call of the protected value itself fails (it
-- is not callable), a handler of another kind, even one with __call, makes the error "error in
-- error handling", as for errors raised inside the call. And table.setn checks its table
-- before it reports that it is obsolete.
debug.setmetatable(0, {__call = function(self, ...) return 'num', self, ... end})
local CT = setmetatable({}, {__call = function(self, ...) return 'CT', ... end})
print(xpcall(nil, 7))
print(xpcall(nil, CT))
print(xpcall(nil, function(e) return 'handled: ' .. e end))
print(xpcall(7, function(e) return 'h' end))
print(xpcall(function() error('x') end, 7))
print(xpcall(function() error('x') end, CT))
print(pcall(table.setn))
print(pcall(table.setn, 5))
print(pcall(table.setn, {}, 3))
