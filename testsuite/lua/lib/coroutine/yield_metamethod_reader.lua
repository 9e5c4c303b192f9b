-- 5.1 cannot yield from a metamethod (__index here) or from load's reader function: the
-- yield fails with "attempt to yield across metamethod/C-call boundary". For the reader,
-- load catches the error and returns nil plus the message.
local function try(label, f)
  local co = coroutine.create(f)
  print(label, coroutine.resume(co))
end
try("index", function()
  local t = setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end})
  return t.key
end)
try("add", function()
  local t = setmetatable({}, {__add = function(a, b) return coroutine.yield("add") end})
  return t + 1
end)
try("load", function() return load(function() coroutine.yield() end) end)
