-- coroutine.wrap returns a function that resumes the coroutine and returns the values
-- without the leading true; errors propagate to the caller (with position info added
-- by error), and calling it after the coroutine ended is an error.
local gen = coroutine.wrap(function(a)
  print("first call with", a)
  local b = coroutine.yield(a * 2)
  print("second call with", b)
  local c, d = coroutine.yield(b * 2, "two")
  return c + d
end)
print(gen(5))
print(gen(10))
print(gen(3, 4))
print(pcall(gen))
print(pcall(gen, 1))
-- Errors inside the wrapped coroutine.
local failing = coroutine.wrap(function() error("inner failure") end)
print(pcall(failing))
local failing2 = coroutine.wrap(function() error({code = 7}) end)
local ok, e = pcall(failing2)
print(ok, type(e), e.code)
local failing3 = coroutine.wrap(function() local x = nil; return x.field end)
print(pcall(failing3))
-- wrap as an iterator in a generic for.
local function range(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
end
local s = 0
for i in range(10) do s = s + i end
print(s)
-- wrap with a C function body is an error in 5.1.
print(pcall(coroutine.wrap, print))
-- type of the wrapper.
print(type(gen))
-- wrap requires a function.
print(pcall(coroutine.wrap, 1))
print(pcall(coroutine.create, nil))
