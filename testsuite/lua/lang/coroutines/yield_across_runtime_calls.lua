-- Yields across the runtime's calls of Lua functions (5.1's C-call boundary), the count of
-- such calls after errors unwind past them, and their nesting limit.
local function try(label, f, ...)
  local co = coroutine.create(f)
  print(label, coroutine.resume(co, ...))
  return co
end

try("for iterator", function()
  for x in function() return coroutine.yield("iter") end do return x end
end)
try("__call handler", function()
  local c = setmetatable({}, {__call = function(self, x) return coroutine.yield(x) end})
  return c("called")
end)
try("__index handler", function()
  local t = setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end})
  return t.key
end)
try("__newindex handler", function()
  local t = setmetatable({}, {__newindex = function(_, k) coroutine.yield(k) end})
  t.key = 1
end)
try("__lt handler", function()
  local mt = {__lt = function() return coroutine.yield("lt") end}
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  return a < b
end)
try("__le fallback", function()
  local mt = {__lt = function() return coroutine.yield("le") end}
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  return a <= b
end)
try("__eq handler", function()
  local mt = {__eq = function() return coroutine.yield("eq") end}
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  return a == b
end)
try("__concat handler", function()
  local t = setmetatable({}, {__concat = function() return coroutine.yield("concat") end})
  return "a" .. t .. "b"
end)
try("__unm handler", function()
  local t = setmetatable({}, {__unm = function() return coroutine.yield("unm") end})
  return -t
end)
try("__len handler", function()
  local u = newproxy(true)
  getmetatable(u).__len = function() return coroutine.yield("len") end
  return #u
end)
try("method via __index", function()
  local t = setmetatable({}, {__index = function() return coroutine.yield("method") end})
  return t:m()
end)
try("global via __index", function()
  setfenv(1, setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end}))
  return some_global
end)

-- An error raised inside a metamethod and caught by pcall leaves no count behind: the
-- coroutine can still yield afterwards.
local co = try("after caught errors", function()
  local t = setmetatable({}, {__index = function() error("inside index") end,
                              __add = function() error({}) end})
  local function kind(ok, e) return ok, type(e) end
  for i = 1, 3 do
    print("caught", pcall(function() return t.x end))
    print("caught", kind(pcall(function() return t + 1 end)))
  end
  print("iterator error", pcall(function() for x in function() error("it") end do end end))
  local v = coroutine.yield("yielded")
  return v
end)
print("resume again", coroutine.resume(co, "back"))

-- Ordinary metamethod use inside a coroutine that yields between them.
try("mixed", function()
  local t = setmetatable({}, {__index = function(_, k) return k .. "!" end})
  local s = t.a
  coroutine.yield(s)
  return t.b
end)

-- Recursion through metamethods reaches 5.1's limit of nested runtime calls.
local deep = setmetatable({}, {})
getmetatable(deep).__index = function(t, k) return t[k] end
print("recursive __index", pcall(function() return deep.x end))
local adder = setmetatable({}, {})
getmetatable(adder).__add = function(a, b) return a + b end
print("recursive __add", pcall(function() return adder + 1 end))
local function iter() for x in iter do end end
print("recursive iterator", pcall(function() for x in iter do end end))
-- After the overflow, metamethods still work.
print("after overflow", setmetatable({}, {__index = function() return "fine" end}).x)
print("done")
