-- Equality with a nil, string or boolean constant compiles to one-compare bytecodes: every kind of value
-- on either side, in conditions and as values, and __eq never called (5.1 calls it only
-- between two tables or two userdata).
local calls = 0
local mt = { __eq = function() calls = calls + 1 return true end }
local values = { false, true, 0, -0.0, 1 / 0, "", "nil", {}, setmetatable({}, mt), print, coroutine.create(function() end), newproxy(true) }
values[#values + 1] = nil
local out = {}
for i = 1, #values + 1 do
  local v = values[i]
  out[#out + 1] = (v == nil and "E" or "e") .. (v ~= nil and "N" or "n") .. (nil == v and "E" or "e") .. (nil ~= v and "N" or "n")
  if v == nil then out[#out + 1] = "if" end
  if not (v ~= nil) then out[#out + 1] = "not" end
end
print(table.concat(out, " "), calls)
local x, n = nil, 0
while x == nil do n = n + 1; if n == 3 then x = n end end
repeat n = n + 1 until x ~= nil
print(x, n, nil == nil, nil ~= nil, (nil == false))

-- The same for string and boolean constants (compared by identity), against every kind of
-- value, __eq tables included; number constants keep numeric equality (-0 == 0).
local res = {}
for i = 1, #values + 1 do
  local v = values[i]
  res[#res + 1] = (v == "nil" and "S" or "s") .. (v ~= "" and "T" or "t") .. (v == true and "B" or "b")
    .. (false ~= v and "F" or "f") .. (v == 0 and "Z" or "z")
end
print(table.concat(res, " "), calls, -0.0 == 0, ("a" .. "b") == "ab")
