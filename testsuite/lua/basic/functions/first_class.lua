-- Functions are values: stored in variables, passed as arguments, returned from other
-- functions, compared, and called through any expression that yields them.
function apply(f, x) local r = f(x) return r end
function twice(f, x) local r = f(f(x)) return r end
local function inc(x) return x + 1 end
local function dbl(x) return x * 2 end
print(apply(inc, 1), apply(dbl, 5), twice(inc, 1), twice(dbl, 3), twice(dbl, twice(inc, 0)))
-- Choosing a function at run time.
function pick(name)
  if name == "inc" then return inc_g end
  return dbl_g
end
inc_g, dbl_g = inc, dbl
print(pick("inc")(10), pick("dbl")(10), pick("inc") == inc)
-- A function passed through several hands.
local f = inc
local g = f
print(g(41), f == g, f ~= dbl)
-- Composition without closures: pass both functions along.
function compose_apply(f1, f2, x) local r = f1(f2(x)) return r end
print(compose_apply(inc, dbl, 5), compose_apply(dbl, inc, 5))
-- Summation with a function argument.
function sum(f, lo, hi)
  local s = 0
  for i = lo, hi do s = s + f(i) end
  return s
end
local function square(x) return x * x end
local function cube(x) return x * x * x end
print(sum(square, 1, 10), sum(cube, 1, 10), sum(inc, 1, 10))
-- Numeric integration by the midpoint rule.
function integrate(f, a, b, n)
  local h = (b - a) / n
  local s = 0
  for i = 0, n - 1 do s = s + f(a + (i + 0.5) * h) end
  return s * h
end
print(integrate(square, 0, 1, 1000), integrate(cube, 0, 2, 100))
-- print itself is a value.
local p = print
p("printed through a local alias")
apply(print, "printed through apply")
