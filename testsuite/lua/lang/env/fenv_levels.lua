-- getfenv/setfenv with stack levels: level 1 is the current function, level 2 its
-- caller; level 0 is the thread's global environment; setfenv(level) changes the
-- running function's environment for its later global accesses.
local function inner() return getfenv(2) end
local function outer() local r = inner() return r end
local custom = setmetatable({}, {__index = _G})
setfenv(outer, custom)
print(outer() == custom, getfenv(1) == _G)
-- setfenv(1, t) inside a function changes its own environment.
local function switch()
  local before = name
  setfenv(1, {name = "after switch"})
  return before, name
end
name = "global name"
print(switch())
-- Calling it again: the function keeps the new environment.
print(pcall(switch))
-- setfenv(2, t) changes the caller's environment.
local function change_caller(t) setfenv(2, t) end
local function victim()
  local before = tag
  change_caller({tag = "new tag"})
  return before, tag
end
tag = "old tag"
print(victim())
-- getfenv(0) is the global environment (of the thread).
print(getfenv(0) == _G)
-- getfenv on a level beyond the stack is an error.
print(pcall(getfenv, 50))
print(pcall(setfenv, 50, {}))
-- Negative level is an error.
print(pcall(getfenv, -1))
-- getfenv(f) for a C function returns the globals.
print(getfenv(print) == _G, getfenv(string.format) == _G)
-- setfenv(0, t) changes the thread's environment (then restore it).
local saved = getfenv(0)
local newenv = setmetatable({marker = "thread env"}, {__index = saved})
setfenv(0, newenv)
local fresh = loadstring("return marker")
print(fresh())
setfenv(0, saved)
print(loadstring("return marker")())
-- Level 1 inside main chunk.
print(getfenv(1) == _G)
