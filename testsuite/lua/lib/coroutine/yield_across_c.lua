-- Yielding from inside library callbacks: 5.1 cannot yield across a C call, so a yield in a
-- table.sort comparator, a string.gsub replacement function, a __tostring called by
-- tostring or an xpcall'ed function fails with "attempt to yield across metamethod/C-call
-- boundary", which resume (or xpcall) reports; yields from plain Lua calls work.
local function try(label, f)
  local co = coroutine.create(f)
  print(label, coroutine.resume(co))
end
try("sort", function() table.sort({3, 1, 2}, function(a, b) coroutine.yield() return a < b end) end)
try("gsub", function() return string.gsub("abc", "%w", function(c) coroutine.yield(c) end) end)
try("xpcall", function() return xpcall(function() coroutine.yield(1) end, function(m) return m end) end)
try("tostring", function() return tostring(setmetatable({}, {__tostring = function() coroutine.yield() return "x" end})) end)
try("lua", function() local function f() return coroutine.yield("plain") end return f() end)
try("for", function() for i = 1, 3 do coroutine.yield(i) end end)
