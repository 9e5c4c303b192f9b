-- debug.getfenv/debug.setfenv work on any value, not stack levels: numbers, strings and nil
-- have no environment (nil, and setfenv fails), threads, C functions and userdata have one,
-- and a missing argument is "value expected".
print(debug.getfenv(1), debug.getfenv("s"), debug.getfenv(nil))
local co = coroutine.create(function() end)
print(debug.getfenv(co) == _G)
local tenv = {}
print(debug.setfenv(co, tenv) == co, debug.getfenv(co) == tenv)
print(pcall(debug.setfenv, {}, {}))
print(pcall(debug.getfenv))
local cf = string.len
local cenv = {}
print(debug.setfenv(cf, cenv) == cf, debug.getfenv(cf) == cenv)
debug.setfenv(cf, _G)
print(type(debug.getfenv(io.stdout)))
