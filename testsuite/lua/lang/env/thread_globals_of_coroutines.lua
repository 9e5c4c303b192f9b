-- Each coroutine has its own global table (5.1's gt): getfenv(0) inside it, debug.setfenv on
-- it, where print finds tostring and what chunks loaded in it get; a new coroutine copies its
-- creator's.
local x
local function f() x = getfenv(0) end
local co = coroutine.create(f)
local t = {}
debug.setfenv(co, t)
f()
print(x == getfenv(0), x == _G)
coroutine.resume(co)
print(x == t, debug.getfenv(co) == t)

local seen = false
local co2 = coroutine.create(function() print("in co2") end)
debug.setfenv(co2, setmetatable({}, {__index = {tostring = function(v) seen = true return "custom" end}}))
coroutine.resume(co2)
print("custom tostring used", seen)

local env = setmetatable({marker = "coroutine env"}, {__index = _G})
local co3 = coroutine.create(function()
  local chunk = loadstring("return marker")
  local inner = coroutine.create(function() return getfenv(0).marker end)
  return chunk(), select(2, coroutine.resume(inner))
end)
debug.setfenv(co3, env)
print(coroutine.resume(co3))
print(loadstring("return marker")())

local co4 = coroutine.create(function()
  setfenv(0, {only = "here"})
  return getfenv(0).only
end)
print(coroutine.resume(co4))
print(getfenv(0) == _G, rawget(_G, "only"))
