-- In 5.1 print calls the global tostring (replacing it changes print's output), and tostring returns whatever __tostring returns, unchecked: a number stays a number
-- (and print accepts it, since a number converts to a string), a table stays a table.
local numobj = setmetatable({}, {__tostring = function() return 42 end})
print(tostring(numobj), type(tostring(numobj)))
print(pcall(print, numobj))
local tabobj = setmetatable({}, {__tostring = function() return {} end})
print(pcall(function() return type(tostring(tabobj)) end))
local nilobj = setmetatable({}, {__tostring = function() return nil end})
print(pcall(function() return type(tostring(nilobj)) end))
local saved = tostring
tostring = function(v) return "<" .. saved(v) .. ">" end
print(1, "two", nil)
tostring = saved
print(1, "two", nil)
