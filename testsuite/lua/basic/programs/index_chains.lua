-- __index chains: classes three levels deep, a chain of ten tables, a function at the end of
-- a table chain, a metatable without __index, a string as __index, an environment falling
-- back to _G, non-string keys through __index.
local Base = {} Base.__index = Base
function Base.new(x) return setmetatable({x = x}, Base) end
function Base:get() return self.x end
function Base:name() return "base" end
local Mid = setmetatable({}, {__index = Base}) Mid.__index = Mid
function Mid:name() return "mid" end
local Leaf = setmetatable({}, {__index = Mid}) Leaf.__index = Leaf
function Leaf.new(x) return setmetatable({x = x}, Leaf) end
local l = Leaf.new(5)
print(l:get(), l:name(), l.missing, Leaf.get == Base.get)
local deep = {} local cur = deep
for i = 1, 10 do local nxt = {} setmetatable(cur, {__index = nxt}) cur = nxt end
cur.found = "deep"
print(deep.found, deep.nothing)
local f = setmetatable({}, {__index = function(t, k) return k .. "!" end})
local g = setmetatable({}, {__index = f})
print(g.abc, g[1])
local h = setmetatable({}, {}) print(h.x)
local s = setmetatable({}, {__index = "str"}) print(pcall(function() return type(s.len) end))
setfenv(1, setmetatable({}, {__index = _G})) print(type(print), undefinedvar)
local n = setmetatable({}, {__index = {[1] = "one", [2.5] = "twohalf", [true] = "yes"}}) print(n[1], n[2.5], n[true], n[false])
