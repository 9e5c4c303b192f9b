-- Unbounded non-tail recursion is caught by pcall as a stack overflow error; only
-- whether it failed and whether the message mentions "stack overflow" are printed
-- (the exact text differs between implementations). The program keeps running
-- normally afterwards.
local function recurse(n) return 1 + recurse(n + 1) end
local ok, e = pcall(recurse, 1)
print(ok, type(e), string.find(e, "stack overflow", 1, true) ~= nil)
-- Recursion through a method.
local obj = {}
function obj:down(n) local r = self:down(n + 1) return r end
ok, e = pcall(obj.down, obj, 0)
print(ok, string.find(e, "stack overflow", 1, true) ~= nil)
-- Mutual non-tail recursion.
local ping, pong
function ping(n) return pong(n) + 1 end
function pong(n) return ping(n) + 1 end
ok, e = pcall(ping, 0)
print(ok, string.find(e, "stack overflow", 1, true) ~= nil)
-- Recursion with many locals per frame.
local function fat(n)
  local a, b, c, d, e1, f, g, h = n, n, n, n, n, n, n, n
  return fat(n + 1) + a + b + c + d + e1 + f + g + h
end
ok, e = pcall(fat, 0)
print(ok, string.find(e, "stack overflow", 1, true) ~= nil)
-- After overflowing, deep but bounded recursion still works.
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
-- Overflow inside a coroutine is returned by resume.
local co = coroutine.create(function() return recurse(1) end)
local okc, ec = coroutine.resume(co)
print(okc, string.find(ec, "stack overflow", 1, true) ~= nil, coroutine.status(co))
-- And repeated overflows are fine.
for i = 1, 3 do
  local ok2, e2 = pcall(recurse, 1)
  io.write(tostring(ok2), " ", tostring(string.find(e2, "stack overflow", 1, true) ~= nil), "; ")
end
print()
