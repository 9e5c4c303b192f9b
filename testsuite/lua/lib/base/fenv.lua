-- getfenv/setfenv: environments of functions by value and by stack level, level 0 (the
-- global environment), the environment of C functions, setfenv return values, and the
-- errors for bad levels and for changing a C function's environment.
print(getfenv() == _G, getfenv(0) == _G, getfenv(1) == _G)
local function f() return getfenv(1) end
print(f() == _G, getfenv(f) == _G)
local env = {print = print, tostring = tostring}
local function g() y_in_env = 5 return y_in_env end
print(setfenv(g, env) == g)
print(g(), env.y_in_env, rawget(_G, "y_in_env"))
print(getfenv(g) == env)
-- A function created inside another inherits the creator's environment.
local function maker() return function() return marker end end
local env2 = {marker = "env2"}
setfenv(maker, env2)
print(maker()())
-- setfenv by level changes the running function's environment.
local function change()
  setfenv(1, {result = "changed"})
  return result
end
print(change())
-- getfenv(2) is the caller's environment.
local function callerenv() return getfenv(2) end
local function wrapper() local e = callerenv() return e end
setfenv(wrapper, env2)
print(wrapper() == env2)
-- C functions have the global environment; getfenv of print works.
print(type(getfenv(print)))
print(pcall(setfenv, print, {}))
print(pcall(getfenv, 100))
print(pcall(setfenv, 100, {}))
print(pcall(getfenv, -1))
print(pcall(setfenv, f, 1))
print(pcall(setfenv, f))
print(pcall(getfenv, "x"))
print(pcall(function() getfenv({}) end))
-- setfenv(0, t) replaces the thread's global table; restore it right away.
local G = _G
setfenv(0, {})
local now = getfenv(0)
setfenv(0, G)
print(now ~= G, getfenv(0) == G)
-- Environment of a loadstring chunk defaults to the globals.
local chunk = loadstring("return zz")
zz = "global zz"
print(chunk())
setfenv(chunk, {zz = "env zz"})
print(chunk())
