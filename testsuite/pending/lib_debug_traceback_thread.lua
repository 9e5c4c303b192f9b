-- PENDING: ljr differs from lua5.1.
-- debug.traceback(thread, ...) treats the coroutine as the message (returns it unchanged) instead of tracing that thread.
-- Expected (lua5.1):
--   string
--   stack traceback:
--   in coroutine / stack traceback:
--   level / stack traceback:
-- Actual (ljr):
--   thread
--   [exit 1] stderr: ljr: traceback_thread.lua:5: attempt to concatenate local 's' (a thread value)
-- debug.traceback with a coroutine as first argument: the traceback of that thread, with
-- the optional message before it (only the first lines are printed).
local function head(s, n)
  local lines = {}
  for line in (s .. "\n"):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
    if #lines == n then break end
  end
  return table.concat(lines, " / ")
end
local co = coroutine.create(function() coroutine.yield() end)
coroutine.resume(co)
print(type(debug.traceback(co)))
print(head(debug.traceback(co), 1))
print(head(debug.traceback(co, "in coroutine"), 2))
print(head(debug.traceback(co, "level", 1), 2))
