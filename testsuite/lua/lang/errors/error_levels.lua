-- error levels: level 1 (default) is the function calling error, level 2 its caller,
-- level 0 adds nothing; a level beyond the stack adds nothing either; levels pointing
-- at C functions add nothing.
local function lvl(n) error("msg", n) end
local function caller(n)
  lvl(n) -- line 6: level 2 points here
end
print(pcall(caller, 1))
print(pcall(caller, 2))
print(pcall(caller, 3))
print(pcall(caller, 0))
print(pcall(caller, 50))
-- Level 2 in a function called from the main chunk through pcall: pcall is the caller
-- (a C function), so no position is added.
print(pcall(lvl, 2))
-- A validation helper blaming its caller.
local function check_positive(n)
  if type(n) ~= "number" or n <= 0 then
    error("expected a positive number, got " .. tostring(n), 2)
  end
  return n
end
-- Through a tail call the caller's frame is gone: level 2 is pcall, no position.
local function api(x)
  return check_positive(x)
end
print(pcall(api, 5))
print(pcall(api, -1))
print(pcall(api, "s"))
-- Without the tail call, level 2 is the line in api2.
local function api2(x)
  local v = check_positive(x) -- line 32
  return v
end
print(pcall(api2, 5))
print(pcall(api2, -1))
-- Level 3 skips two frames.
local function inner() error("deep", 3) end
local function middle() inner() end
local function outer()
  middle() -- line 41: level 3 from inner
end
print(pcall(outer))
-- Levels in methods.
local obj = {}
function obj:fail() error("method failure", 2) end
local function use() obj:fail() end -- line 47
print(pcall(use))
-- A negative level adds no position.
print(pcall(function() error("neg", -1) end))
