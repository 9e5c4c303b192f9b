-- PENDING: ljr differs from lua5.1.
-- ljr lets a coroutine yield from __index/__add metamethods (5.1: 'attempt to yield across metamethod/C-call boundary'); an error in load's reader propagates instead of being returned as nil, msg.
-- Expected (lua5.1):
--   index	false	attempt to yield across metamethod/C-call boundary
--   add	false	attempt to yield across metamethod/C-call boundary
--   load	true	nil	attempt to yield across metamethod/C-call boundary
-- Actual (ljr):
--   index	true	key
--   add	true	add
--   load	false	attempt to yield across metamethod/C-call boundary
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
