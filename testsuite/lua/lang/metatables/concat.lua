-- __concat: called when either operand is not a string or number; `..` is right
-- associative, so in a chain the rightmost pair is handled first, and runs of strings
-- and numbers are joined before the metamethod sees them.
local function name(v)
  if type(v) == "table" then return v.name end
  return type(v) .. ":" .. tostring(v)
end
local mt = {}
mt.__concat = function(a, b)
  return setmetatable({name = "(" .. name(a) .. " .. " .. name(b) .. ")"}, mt)
end
local A = setmetatable({name = "A"}, mt)
local B = setmetatable({name = "B"}, mt)
print((A .. B).name)
print((A .. "x").name)
print(("x" .. A).name)
print((1 .. A).name)
print(("a" .. "b" .. A).name)
print((A .. "a" .. "b").name)
print(("a" .. A .. "b").name)
print((A .. B .. A).name)
print((1 .. 2 .. A .. 3 .. 4).name)
print(("p" .. A .. "q" .. B .. "r").name)
-- Booleans, nil and functions reach the metamethod.
print((A .. true).name, (nil .. A).name, (false .. A).name)
-- Returning a string from __concat lets it continue as a plain string.
local S = setmetatable({}, {__concat = function(a, b)
  local x = type(a) == "table" and "S" or a
  local y = type(b) == "table" and "S" or b
  return x .. y
end})
print(S .. "!", "<" .. S .. ">", 1 .. S .. 2, S .. S)
-- The left operand's handler is used first, then the right one's.
local L = setmetatable({}, {__concat = function() return "L" end})
local R = setmetatable({}, {__concat = function() return "R" end})
print(L .. R, R .. L, "s" .. R, L .. "s")
-- A table without __concat is an error (message names the operand).
local plain = {}
print(pcall(function() return "a" .. plain end))
print(pcall(function() return plain .. L end))
print(pcall(function() return L .. plain end))
-- Numbers concatenate using %.14g.
print(1 .. "", 1.5 .. "|", 1e100 .. "", -0.25 .. "", 2^63 .. "")
