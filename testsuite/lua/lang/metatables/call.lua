-- __call: calling a non-function with a __call metamethod calls it with the object
-- first, then the arguments; all results are returned; works in tail calls, method
-- calls, pcall, and as iterators.
local mt = {__call = function(self, a, b, ...) return self.name, a, b, select("#", ...), ... end}
local obj = setmetatable({name = "obj"}, mt)
print(obj())
print(obj(1))
print(obj(1, 2, 3, 4))
print(select("#", obj(1, 2, nil, nil)))
-- In a table constructor and truncated in the middle.
local t = {obj("a", "b", "c")}
print(#t, t[1], t[4], t[5])
print((obj("a")))
-- As a method.
local holder = {f = obj}
local r = {holder:f("arg")}
print(r[1], r[2] == holder, r[3], r[4])
-- Through pcall.
print(pcall(obj, "p"))
-- In a tail call.
local function tail(...) return obj(...) end
print(tail("t1", "t2"))
-- Callable tables as counters.
local counter = setmetatable({n = 0}, {__call = function(self, inc) self.n = self.n + (inc or 1) return self.n end})
counter() counter() counter(10)
print(counter.n)
-- Callable as a generic-for iterator.
local iter = setmetatable({i = 0}, {__call = function(self, s, c)
  self.i = self.i + 1
  if self.i <= 3 then return self.i, self.i * self.i end
end})
for i, sq in iter do print("iter", i, sq) end
-- __call on a metatable whose __call is itself a callable table is not followed in 5.1.
local inner = setmetatable({}, {__call = function() return "inner" end})
local outer = setmetatable({}, {__call = inner})
print(pcall(outer))
-- Calling a table without __call.
local plain = {}
print(pcall(function() plain() end))
print(pcall(function() local x = setmetatable({}, {}) x() end))
-- __call receives nils.
local c = setmetatable({}, {__call = function(...) return select("#", ...) end})
print(c(), c(nil), c(nil, nil))
-- Callable used by table.sort comparator? (must be a function? 5.1 accepts callables)
local cmp = setmetatable({}, {__call = function(_, a, b) return a > b end})
local arr = {3, 1, 2}
print(pcall(table.sort, arr, cmp))
print(table.concat(arr, " "))
