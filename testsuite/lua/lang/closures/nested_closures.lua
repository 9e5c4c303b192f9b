-- Closures nested three (and more) levels deep access variables from every enclosing
-- function; intermediate functions pass upvalues through even if they don't use them.
local function level1(a)
  local function level2(b)
    local function level3(c)
      return function(d) return a .. b .. c .. d end
    end
    return level3
  end
  return level2
end
print(level1("a")("b")("c")("d"))
-- Writes at the innermost level are visible to the outer levels.
local function outer()
  local count = 0
  local function mid()
    local function inner() count = count + 1 end
    inner() inner()
    return count
  end
  local r = mid()
  return r, count
end
print(outer())
-- An intermediate function that does not mention the variable.
local function a()
  local secret = 7
  return function()
    return function()
      return function() secret = secret + 1 return secret end
    end
  end
end
local deep = a()()()
print(deep(), deep())
-- Siblings at different depths share the same variable.
local function family()
  local shared = 0
  local function child() shared = shared + 1 end
  local function parent()
    return function() shared = shared + 10 end
  end
  return child, parent(), function() return shared end
end
local c, gc, read = family()
c() gc() c()
print(read())
-- Currying.
local function curry3(f)
  return function(x) return function(y) return function(z) return f(x, y, z) end end end
end
local add3 = curry3(function(x, y, z) return x + y + z end)
print(add3(1)(2)(3), add3(10)(20)(30))
-- Composition.
local function compose(...)
  local fs = {...}
  return function(x)
    for i = #fs, 1, -1 do x = fs[i](x) end
    return x
  end
end
local inc = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
print(compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(5))
-- Many upvalues in one closure (more than a few registers).
local function many()
  local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  return function() return v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 end
end
print(many()())
-- Five levels deep with a variable at each level.
local r = (function(p)
  return (function(q)
    return (function(s)
      return (function(t)
        return (function(u) return p * q * s * t * u end)(5)
      end)(4)
    end)(3)
  end)(2)
end)(1)
print(r)
