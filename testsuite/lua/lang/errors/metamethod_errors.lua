-- Errors raised inside metamethods (__index, __newindex, __add, __call, __eq, __lt,
-- __concat, __tostring) propagate to the pcall around the operation with the message
-- and position of the metamethod.
local mt = {
  __index = function(t, k) error("no field " .. k) end,
  __newindex = function(t, k) error("cannot set " .. k, 2) end,
  __add = function() error("cannot add", 0) end,
  __call = function(self, x) return x.missing.field end,
  __eq = function() error({kind = "eq"}) end,
  __lt = function() error("lt failed") end,
  __concat = function(a, b) return {} .. b end,
}
local a = setmetatable({}, mt)
local b = setmetatable({}, mt)
print(pcall(function() return a.foo end))
print(pcall(function() a.bar = 1 end))
print(pcall(function() return a + 1 end))
print(pcall(a, {}))
print(pcall(a, nil))
local ok, e = pcall(function() return a == b end)
print(ok, type(e), e.kind)
print(pcall(function() return a < b end))
print(pcall(function() return a .. "x" end))
-- An __index chain whose end raises an error.
local base = setmetatable({}, {__index = function(_, k) error("base lacks " .. k, 0) end})
local derived = setmetatable({}, {__index = base})
print(pcall(function() return derived.anything end))
-- __index that indexes nil.
local broken = setmetatable({}, {__index = function(t, k) local n = nil return n[k] end})
print(pcall(function() return broken.x end))
-- Error from __tostring through tostring.
local ts = setmetatable({}, {__tostring = function() error("no tostring", 0) end})
print(pcall(tostring, ts))
-- Error inside a __newindex table chain? A table __newindex with a function further up.
local guard = setmetatable({}, {__newindex = function(_, k) error("guarded " .. k, 0) end})
local front = setmetatable({}, {__newindex = guard})
print(pcall(function() front.z = 1 end))
-- Errors in __lt used by table.sort.
local items = {setmetatable({}, mt), setmetatable({}, mt)}
print(pcall(table.sort, items))
