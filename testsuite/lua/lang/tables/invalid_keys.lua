-- Writing with a nil or NaN key is an error; reading with them returns nil. rawset
-- reports the same errors. Messages are printed from pcall.
local t = {}
print(pcall(function() t[nil] = 1 end))
local nan = 0 / 0
print(pcall(function() t[nan] = 1 end))
print(t[nil], t[nan])
print(pcall(rawset, t, nil, 1))
print(pcall(rawset, t, nan, 1))
print(rawget(t, nil), rawget(t, nan))
-- Constructors with a nil or NaN key.
print(pcall(function() return {[nil] = 1} end))
print(pcall(function() return {[nan] = 1} end))
-- Assigning nil to a nil key is still an error.
print(pcall(function() t[nil] = nil end))
-- Through a local variable holding nil.
local k
print(pcall(function() t[k] = "v" end))
-- Indexing a nil or a non-table value.
print(pcall(function() local n = nil; return n.x end))
print(pcall(function() local b = true; return b.x end))
print(pcall(function() local num = 5; num.x = 1 end))
-- next with an invalid key.
print(pcall(next, t, "missing"))
-- The table is still empty.
print(next(t))
