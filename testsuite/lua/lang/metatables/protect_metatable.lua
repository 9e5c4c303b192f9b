-- The __metatable field: getmetatable returns it instead of the metatable, and
-- setmetatable refuses to change a protected metatable. setmetatable's argument
-- checks and return value.
local t = setmetatable({}, {__metatable = "locked", __index = {x = 1}})
print(getmetatable(t), t.x)
print(pcall(setmetatable, t, {}))
print(pcall(setmetatable, t, nil))
-- Protection value can be any non-nil value, even false.
local f = setmetatable({}, {__metatable = false})
print(getmetatable(f))
print(pcall(setmetatable, f, {}))
local tbl = {}
local p = setmetatable({}, {__metatable = tbl})
print(getmetatable(p) == tbl)
-- setmetatable returns its first argument.
local q = {}
print(setmetatable(q, {}) == q)
-- Removing a metatable with nil.
setmetatable(q, nil)
print(getmetatable(q))
-- Bad arguments.
print(pcall(setmetatable, 5, {}))
print(pcall(getmetatable))
-- getmetatable of non-tables.
print(getmetatable(1), getmetatable(nil), getmetatable(print), getmetatable(true))
print(getmetatable("abc") == getmetatable(""), type(getmetatable("")))
print(getmetatable("").__index == string)
-- The string metatable can be protected? It has no __metatable by default.
print(rawget(getmetatable(""), "__metatable"))
-- Metatables can be shared and can be their own metatable.
local shared = {}
shared.__index = shared
shared.val = "shared"
local o1, o2 = setmetatable({}, shared), setmetatable({}, shared)
print(o1.val, o2.val, getmetatable(o1) == getmetatable(o2))
local selfmt = {}
setmetatable(selfmt, selfmt)
print(getmetatable(selfmt) == selfmt)
-- A metatable of a metatable is not consulted for metamethods.
local outer = setmetatable({}, {__index = function() return function() return "meta-meta" end end})
local obj = setmetatable({}, outer)
print(pcall(function() return obj + 1 end))
