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
