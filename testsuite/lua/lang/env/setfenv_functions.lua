-- setfenv/getfenv on functions: a function's globals are looked up in its
-- environment table; setfenv returns the function; closures created later inherit the
-- creator's environment; different functions can have different environments.
local function show() return x, y end
x, y = "global x", "global y"
print(show())
local env = {x = "env x"}
print(setfenv(show, env) == show)
print(show())
print(getfenv(show) == env, getfenv(print) == _G)
-- Functions created inside a function with a custom environment inherit it.
local function factory()
  return function() return x end
end
setfenv(factory, {x = "factory env"})
local made = factory()
print(made(), getfenv(made) == getfenv(factory))
-- Assignments to globals go to the environment.
local function writer() newglobal = "written" end
local store = {}
setfenv(writer, store)
writer()
print(store.newglobal, rawget(_G, "newglobal"))
-- An environment with __index to _G sees globals it does not define.
local sandbox = setmetatable({x = "sandbox x"}, {__index = _G})
local function uses_print() return type(print), x, y end
setfenv(uses_print, sandbox)
print(uses_print())
-- __newindex on the environment intercepts global writes.
local log = {}
local logged = setmetatable({}, {__index = _G, __newindex = function(t, k, v)
  log[#log + 1] = k rawset(t, k, v) end})
local function setter() a = 1 b = 2 a = 3 end
setfenv(setter, logged)
setter()
print(table.concat(log, ","), logged.a, logged.b)
-- Changing the environment of a function does not affect other functions.
local function g1() return x end
local function g2() return x end
setfenv(g1, {x = "g1"})
print(g1(), g2())
-- An empty environment: even print is missing.
local function needs_print() return print end
setfenv(needs_print, {})
print(needs_print())
print(pcall(setfenv(function() print("never") end, {})))
-- Locals and upvalues are not affected by the environment.
local captured = "upvalue"
local function localvars() local l = "local" return l, captured, x end
setfenv(localvars, {x = "env"})
print(localvars())
-- getfenv with no argument or 1 is the calling function's environment.
local function whoami() return getfenv() == getfenv(1) end
print(whoami())
-- setfenv with a bad environment.
print(pcall(setfenv, show, 5))
print(pcall(setfenv, show))
