-- debug.getmetatable/debug.setmetatable bypass __metatable (debug.setmetatable returns
-- true in 5.1), debug.getmetatable of strings and numbers, and debug.getfenv/debug.setfenv
-- on Lua and C functions, including the errors.
local protected = setmetatable({}, {__metatable = "hidden", marker = 1})
print(getmetatable(protected), debug.getmetatable(protected).marker)
print(debug.setmetatable(protected, nil) == protected, getmetatable(protected))
print(debug.getmetatable(1), debug.getmetatable("s").__index == string)
local replaced = setmetatable({}, {__metatable = false})
debug.setmetatable(replaced, {__index = {k = "v"}})
print(replaced.k, type(getmetatable(replaced)))
print(pcall(debug.getmetatable))
print(debug.getfenv(print) == _G)
local function f() return v end
local env = {v = "from env"}
print(debug.setfenv(f, env) == f, f(), debug.getfenv(f) == env)
print(pcall(debug.setfenv, f, 1))
print(pcall(debug.setfenv, 1, {}))
