-- debug.traceback: the message on the first line followed by "stack traceback:" (only these
-- two lines are printed, the frames differ between implementations), no message, a
-- number message converted, other non-string messages returned unchanged, and the
-- traceback as an xpcall handler.
local function head(s, n)
  local lines = {}
  for line in (s .. "\n"):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
    if #lines == n then break end
  end
  return table.concat(lines, " / ")
end
print(type(debug.traceback()))
print(head(debug.traceback("msg"), 2))
print(head(debug.traceback(), 1))
print(head(debug.traceback("multi\nline"), 3))
print(head(debug.traceback("with level", 1), 2))
print(head(debug.traceback(""), 2))
local t = {}
print(debug.traceback(t) == t, head(debug.traceback(42), 2))
print(debug.traceback(true), debug.traceback(print) == print)
local ok, tb = xpcall(function() error("failure") end, debug.traceback)
print(ok, head(tb, 2))
