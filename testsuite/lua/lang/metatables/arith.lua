-- Arithmetic metamethods __add __sub __mul __div __mod __pow __unm: each is called
-- with the operands in source order, results are truncated to one value, and number
-- and string operands reach the metamethod unchanged.
local function tag(v) return type(v) == "table" and v.name or tostring(v) end
local mt = {}
for _, ev in ipairs({"add", "sub", "mul", "div", "mod", "pow"}) do
  mt["__" .. ev] = function(a, b) return ev .. "(" .. tag(a) .. "," .. tag(b) .. ")", "dropped" end
end
mt.__unm = function(a, b) return "unm(" .. tag(a) .. "," .. tag(b) .. ")" end
local A = setmetatable({name = "A"}, mt)
local B = setmetatable({name = "B"}, mt)
print(A + B, A - B, A * B, A / B, A % B, A ^ B)
print(A + 1, 1 + A, A - "2", "2" - A, A * 2.5, 10 / A)
print(-A)
local r1, r2 = A + B
print(r1, r2)
-- Operator precedence with metamethods: -A^B is -(A^B), and negating the string
-- result of __pow fails.
print(pcall(function() return -A ^ B end))
print((-A) ^ B)
-- Numbers that are strings are still given to the metamethod as strings.
print(A % "7", type(select(2, pcall(function() return "x" + A end))))
-- A metamethod can return any type.
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, V) end
V.__sub = function(a, b) return setmetatable({x = a.x - b.x, y = a.y - b.y}, V) end
V.__mul = function(a, b)
  if type(a) == "number" then return setmetatable({x = a * b.x, y = a * b.y}, V) end
  if type(b) == "number" then return setmetatable({x = a.x * b, y = a.y * b}, V) end
  return a.x * b.x + a.y * b.y
end
V.__unm = function(a) return setmetatable({x = -a.x, y = -a.y}, V) end
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
local p = vec(1, 2) + vec(3, 4) * 2 - -vec(1, 1)
print(p.x, p.y, vec(1, 2) * vec(3, 4), (3 * vec(1, 1)).y)
-- Chained operations call the metamethod each time.
local count = 0
local C = setmetatable({}, {__add = function(a, b) count = count + 1 return a end})
local _ = C + 1 + 2 + 3 + 4
print(count)
-- Metamethods in compound expressions and loops.
local acc = vec(0, 0)
for i = 1, 10 do acc = acc + vec(i, -i) end
print(acc.x, acc.y)
-- Booleans and nil operands reach the metamethod too.
print(A + true, nil - A, A * false)
