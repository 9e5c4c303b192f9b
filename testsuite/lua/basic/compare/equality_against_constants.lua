-- `x == k` for constants of every type: the compiler leaves the choice of bytecode to the
-- builder, which picks the variant specialised on the constant's type (nil; boolean or string;
-- number). Each is run on values of every type, in both senses and both operand orders.
local mt = {__eq = function() return true end}
local values = {nil, false, true, 0, -0, 1, 0/0, 1/0, "", "a", "1", {}, setmetatable({}, mt), print, coroutine.create(function() end)}
local n = 15
local function show(v) return type(v) == "table" and "table" or type(v) == "function" and "function" or type(v) == "thread" and "thread" or tostring(v) end
for i = 1, n do
  local x = values[i]
  local r = {}
  r[#r + 1] = x == nil and "=nil" or "~nil"
  r[#r + 1] = x ~= nil and "~nil" or "=nil"
  r[#r + 1] = nil == x and "=nil" or "~nil"
  r[#r + 1] = x == false and "=false" or "~false"
  r[#r + 1] = x == true and "=true" or "~true"
  r[#r + 1] = x ~= true and "~true" or "=true"
  r[#r + 1] = x == "a" and "=a" or "~a"
  r[#r + 1] = x ~= "" and "~empty" or "=empty"
  r[#r + 1] = x == "1" and "='1'" or "~'1'"
  r[#r + 1] = x == 1 and "=1" or "~1"
  r[#r + 1] = x == 0 and "=0" or "~0"
  r[#r + 1] = x == -0 and "=-0" or "~-0"
  r[#r + 1] = x ~= 1/0 and "~inf" or "=inf"
  r[#r + 1] = x == x and "self" or "notself"
  -- In a loop, so the branch is taken and not taken by the same instruction.
  local count = 0
  for j = 1, n do if values[j] == x then count = count + 1 end end
  r[#r + 1] = "matches=" .. count
  print(i, show(x), table.concat(r, " "))
end
-- A comparison whose constant is the only thing that differs between two sites.
local function classify(v)
  if v == nil then return "nil" elseif v == false then return "false" elseif v == "x" then return "x" elseif v == 2 then return "two" end
  return "other"
end
for _, v in ipairs({false, "x", 2, 2.0, "2", true}) do io.write(classify(v), " ") end
print(classify(nil))
