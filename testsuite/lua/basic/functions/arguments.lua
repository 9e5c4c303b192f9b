-- Argument passing: missing arguments are nil, extra arguments are evaluated and
-- ignored, parameters are locals that can be reassigned without affecting the caller.
function three(a, b, c)
  print(a, b, c)
end
three()
three(1)
three(1, 2)
three(1, 2, 3)
three(1, 2, 3, 4, 5)
three(nil, nil, 3)
-- Extra arguments are still evaluated (side effects happen).
evaluated = 0
function effect(v) evaluated = evaluated + 1 return v end
function one(a) return a end
print(one(effect(1), effect(2), effect(3)), evaluated)
-- Parameters are copies of values.
function modify(x)
  x = x * 2
  return x
end
local v = 21
print(modify(v), v)
-- A parameter can default through `or`.
function greet(name, punct)
  name = name or "world"
  punct = punct or "."
  return "hello " .. name .. punct
end
print(greet(), greet("lua"), greet("lua", "!"), greet(nil, "?"))
-- A function with no parameters ignores all arguments.
function const() return 42 end
print(const(1, 2, 3))
-- Many parameters.
function many(a, b, c, d, e, f, g, h)
  return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8
end
print(many(1, 1, 1, 1, 1, 1, 1, 1), many(1, 2, 3, 4, 5, 6, 7, 8))
-- Arguments of different types.
function describe(x, y)
  if x == nil then return "nil" end
  if x == true or x == false then return "boolean" end
  if x == y then return "same" end
  return "other"
end
print(describe(nil), describe(true), describe(false), describe(1, 1), describe("a", "b"))
