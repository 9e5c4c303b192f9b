-- PENDING: ljr differs from lua5.1.
-- Line events inside statements that span lines: 5.1 gives each instruction the line of the
-- last token read when it was emitted, ljr the line the expression starts on.
-- Expected (lua5.1):
--   true	3	20 1 2 3 1 4 21
--   true	table	20 1 2 3 4 21
--   true	3	20 2 3 21
--   true	1	20 2 3 21
--   true	table	20 1 3 4 21
-- Actual (ljr):
--   true	3	20 1 2 3 1 4 21
--   true	table	20 1 4 21
--   true	3	20 1 3 21
--   true	1	20 2 3 21
--   true	table	20 1 2 4 21
local function trace_lines(src, ...)
  local f = assert(loadstring(src, "=src"))
  local got = {}
  debug.sethook(function(e, l) got[#got + 1] = l end, "l")
  local ok, r = pcall(f, ...)
  debug.sethook()
  print(ok, type(r) == "table" and "table" or r, table.concat(got, " "))
end
trace_lines([[
local a = math.max(1,
  2,
  3)
return a]])
trace_lines([[
local t = {
  x = 1,
  y = 2 }
return t]])
trace_lines([[
local a = 1 +
  2
return a]])
trace_lines([[
local a
  = 1
return a]])
trace_lines([[
local t = {}
t.x =
  3
return t]])
