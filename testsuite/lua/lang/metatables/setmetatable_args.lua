-- setmetatable's argument checks: the second argument must be nil or a table (lua5.1's
-- message has no "got ..." part) and must be present; the first must be a table.
print(pcall(setmetatable, {}, 5))
print(pcall(setmetatable, {}, "mt"))
print(pcall(setmetatable, {}, true))
local ok, r = pcall(setmetatable, {})
print(ok, ok and type(r) or r)
print(pcall(function() return type(setmetatable({})) == "table" end))
print(pcall(function() return type(setmetatable({}, nil)) end))
print(pcall(setmetatable, "s", {}))
print(pcall(setmetatable, nil, {}))
print(pcall(setmetatable))
