-- print and tostring: formatting of every basic type (addresses hidden), numbers with %.14g,
-- __tostring metamethods used by both, a __tostring returning a table (an error for print:
-- "'tostring' must return a string to 'print'"), and tostring's argument check.
print(nil, true, false, 0, -1.5, 1e100, 2^53, 1/3, "s")
print(tostring(nil), tostring(true), tostring(12), tostring(-0.25), tostring("x"))
print(tostring(1e15), tostring(1e16), tostring(123456789012345), tostring(0.1))
print(type(tostring(1)), tostring(1) == "1")
print(string.match(tostring({}), "^table: "), string.match(tostring(print), "^function: "))
print(string.match(tostring(coroutine.create(function() end)), "^thread: "))
print(string.match(tostring(function() end), "^function: "))
local obj = setmetatable({}, {__tostring = function(self) return "<obj>" end})
print(obj, tostring(obj))
print("a", obj, "b")
local tabobj = setmetatable({}, {__tostring = function() return {} end})
print(pcall(print, tabobj))
local errobj = setmetatable({}, {__tostring = function() error("tostring failed") end})
print(pcall(tostring, errobj))
print(pcall(tostring))
print(tostring(nil))
-- __tostring receives the object itself.
local named = setmetatable({name = "bob"}, {__tostring = function(self) return "named " .. self.name end})
print(named)
-- print with no arguments prints an empty line.
print()
print("")
-- __name is not used in 5.1; a metatable without __tostring gives the default form.
local plain = setmetatable({}, {__name = "MyType"})
print(string.match(tostring(plain), "^table: ") ~= nil)
