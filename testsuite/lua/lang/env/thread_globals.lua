-- setfenv(0, t) in a coroutine changes that coroutine's globals only (5.1's per-thread
-- gt(L)): functions it loads and the library's own lookups (print's tostring) in other
-- threads still use theirs. A new coroutine starts with its creator's globals.
local saved = _G
local co = coroutine.wrap(function(t)
  setfenv(0, t)
  coroutine.yield(getfenv(0) == t, getfenv(1) == saved)
  local inner = coroutine.create(function() return getfenv(0) end)
  local _, g = coroutine.resume(inner)
  coroutine.yield(g == t, loadstring("return x")())
  return getfenv(0) == t
end)
local env = {x = "from t"}
print(co(env))
print(getfenv(0) == saved, loadstring("return print")() == print)
print(co())
print(co())
print(tostring(nil), getfenv(0) == _G)
print(debug.getfenv(coroutine.create(function() end)) == _G)
