-- lua5.1's tostring returns whatever __tostring returned without converting a number
-- result to a string; print shows it; a __tostring returning a non-string non-number
-- makes print (but not tostring) fail.
local num = setmetatable({}, {__tostring = function() return 42 end})
print(tostring(num), type(tostring(num)))
print(num)
local f = setmetatable({}, {__tostring = function() return 1.5 end})
print(tostring(f), type(tostring(f)), tostring(f) + 1)
local tb = setmetatable({}, {__tostring = function() return true end})
print(tostring(tb), type(tostring(tb)))
print(pcall(print, tb))
local nl = setmetatable({}, {__tostring = function() end})
print(tostring(nl), type(tostring(nl)))
print(pcall(print, nl))
