-- Runtime error messages name the variable involved: local, global, upvalue, field,
-- method, and constant string keys; the message is printed from pcall.
local function try(f) local ok, e = pcall(f) print(e) end
-- Indexing.
try(function() local x; return x.y end)
try(function() return undefined_global.y end)
local up
try(function() return up.y end)
local t = {}
try(function() return t.inner.y end)
try(function() return t.inner[1] end)
try(function() t.inner.y = 1 end)
try(function() local s = "str"; return s.x.y end)
try(function() local n = 1; n.x = 2 end)
-- Calling.
try(function() local f; f() end)
try(function() undefined_fn() end)
try(function() up() end)
try(function() t.missing() end)
try(function() t:foo() end)
try(function() local obj = {}; obj:method(1, 2) end)
try(function() ("x"):nomethod() end)
try(function() t.inner.deep() end)
try(function() local n = 5; n() end)
-- Arithmetic.
try(function() local x; return x + 1 end)
try(function() return 1 + undefined_num end)
try(function() return t.y * 2 end)
try(function() local obj = {y = {}}; return obj.y - 1 end)
try(function() return up % 2 end)
try(function() local s = "abc"; return -s end)
try(function() local b = true; return b ^ 2 end)
try(function() return 2 / t end)
-- Concatenation.
try(function() local u = {}; return "a" .. u end)
local tab_up = {}
try(function() return "a" .. tab_up end)
try(function() return t.nothing .. "x" end)
try(function() return undefined_str .. "x" end)
try(function() local b = false; return b .. "x" end)
try(function() return "x" .. nil end)
-- Length.
try(function() local n; return #n end)
try(function() return #t.nope end)
try(function() return #undefined_len end)
