-- Userdata finalizers (__gc on a newproxy metatable), as 5.1 runs them: newest first, after
-- weak values that refer to the object are cleared and before its weak keys go; once each,
-- even when the finalizer resurrects the object; errors propagate from collectgarbage; the
-- rest run when the program ends.
collectgarbage("stop")

-- Order, and what the finalizer sees.
local log = {}
local weak_values = setmetatable({}, {__mode = "v"})
local weak_keys = setmetatable({}, {__mode = "k"})
do
  local proto = newproxy(true)
  local mt = getmetatable(proto)
  local names = setmetatable({}, {__mode = "k"})
  mt.__gc = function(o)
    log[#log + 1] = names[o]
    assert(getmetatable(o) == mt)
    -- weak values were cleared before, weak keys still hold the object
    for _, v in pairs(weak_values) do assert(v ~= o) end
    assert(weak_keys[o] == names[o])
  end
  for i = 1, 5 do
    local u = newproxy(proto)
    names[u] = "u" .. i
    weak_values[i] = u
    weak_keys[u] = "u" .. i
  end
  names[proto] = "proto"
  weak_keys[proto] = "proto"
end
collectgarbage()
print(table.concat(log, " "))
local n = 0
for k in pairs(weak_keys) do n = n + 1 end
print("weak keys after one cycle", n)
collectgarbage()
n = 0
for k in pairs(weak_keys) do n = n + 1 end
print("weak keys after two cycles", n)

-- A finalizer runs once, even on a resurrected object.
local saved
local count = 0
do
  local u = newproxy(true)
  getmetatable(u).__gc = function(o) count = count + 1; saved = o end
end
collectgarbage()
print("finalized", count, type(saved))
saved = nil
collectgarbage()
collectgarbage()
print("finalized", count, saved)

-- __gc is looked up when the object dies and again when the finalizer runs: a metatable
-- without __gc at death is never finalized, and the finalizer may be any callable value.
do
  local u = newproxy(true)
  u = nil
  collectgarbage()
  getmetatable(newproxy(true)).__gc = function() print("a new proxy's finalizer") end
end
collectgarbage()
do
  local u = newproxy(true)
  getmetatable(u).__gc = setmetatable({}, {__call = function(self, o) print("__call finalizer", type(o)) end})
end
collectgarbage()

-- An error in a finalizer comes out of the collection that ran it; the queue goes on at the
-- next one. (The objects become garbage just before the collection, and nothing is printed
-- in between, so that --gc-stress, which collects and finalizes at every native call, runs
-- them at the same places.)
local function make_failing()
  local a = newproxy(true)
  getmetatable(a).__gc = function() print("second finalizer") end
  local b = newproxy(true)
  getmetatable(b).__gc = function() error("finalizer failed") end
  return {a, b}
end
local holder = make_failing()
local ok, err = pcall(function() holder = nil; return collectgarbage() end)
local ok2 = pcall(collectgarbage)
print(ok, err, ok2)

-- Finalizers of objects still alive at the end run then, errors ignored.
___keep = {}
for i = 1, 3 do
  local u = newproxy(true)
  getmetatable(u).__gc = function() print("at exit", i); error("ignored at exit") end
  ___keep[i] = u
end
local last = newproxy(true)
getmetatable(last).__gc = function(o) print("last at exit"); newproxy(o) end
print("end of chunk")
