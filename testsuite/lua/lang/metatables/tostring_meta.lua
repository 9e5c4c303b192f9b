-- __tostring is used by tostring and print (not by `..` or string.format); errors in it
-- propagate; __name is not a 5.1 feature.
local mt = {__tostring = function(t) return "<obj " .. t.id .. ">" end}
local a = setmetatable({id = 1}, mt)
print(a)
print(tostring(a), type(tostring(a)))
print(a, setmetatable({id = 2}, mt), "x")
io.write(tostring(a), "\n")
-- __tostring receives the value and extra results are dropped.
local got
local s = setmetatable({}, {__tostring = function(self, extra) got = self return "s", "t" end})
print(tostring(s), got == s, select("#", tostring(s)))
-- Concatenation does not use __tostring.
print(pcall(function() return "x" .. a end))
-- string.format's %s does not call __tostring in 5.1: it needs a string.
print(pcall(string.format, "%s", a))
-- An erroring __tostring propagates.
local bad = setmetatable({}, {__tostring = function() error("no string", 0) end})
print(pcall(tostring, bad))
print(pcall(print, bad))
-- __tostring on a metatable field changed later.
mt.__tostring = function(t) return "changed " .. t.id end
print(a)
mt.__tostring = nil
print(type(tostring(a)), tostring(a):sub(1, 6))
-- A __name field has no effect in 5.1.
local named = setmetatable({}, {__name = "MyType"})
print(tostring(named):sub(1, 6))
-- tostring of the basic types.
print(tostring(nil), tostring(true), tostring(false), tostring(12), tostring(-1.5), tostring("s"))
print(tostring(print):sub(1, 9), tostring({}):sub(1, 6), tostring(coroutine.create(function() end)):sub(1, 7))
