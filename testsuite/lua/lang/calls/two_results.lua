-- Calls that keep two results (`local a, b = f()`): fewer results pad with nil, more are
-- dropped, whatever the callee (Lua, vararg, library, `__call`, a tail call, a coroutine).
local function r0() end
local function r1() return 1 end
local function r2() return 1, 2 end
local function r3() return 1, 2, 3 end
local function rv(...) return ... end
local function tail(...) return rv(...) end
local callable = setmetatable({}, { __call = function(self, a, b) return b, a end })
local fs = { r0, r1, r2, r3 }
for i = 1, #fs do
  local a, b = fs[i]()
  print(i, a, b)
end
for n = 0, 4 do
  local a, b = rv(unpack({ "x", "y", "z", "w" }, 1, n))
  local c, d = tail(unpack({ 10, 20, 30 }, 1, n))
  print(n, a, b, c, d)
end
local a, b = callable("p", "q")
print(a, b)
local ok, v = pcall(r2)
print(ok, v)
local ok2, err = pcall(error, "boom", 0)
print(ok2, err)
local k, val = next({ 7 })
print(k, val)
local i, j = ("hello"):find("l+")
print(i, j)
local co = coroutine.wrap(function(x) local y, z = coroutine.yield(x, x + 1) return y + z, y - z end)
local c1, c2 = co(5)
local c3, c4 = co(10, 4)
print(c1, c2, c3, c4)
-- In a loop hot enough for the JIT's tiers.
local s = 0
for n = 1, 2000 do
  local x, y = rv(n, n % 7)
  local p, q = r1()
  s = s + x + y + p + (q or 0)
end
print(s)
