-- load parses while it reads, as lua5.1 does: a syntax error stops the reading at the
-- token it is found on, so a reader sees exactly as many calls as under lua5.1 (the first
-- call peeks for a binary chunk; after the end, the lexer asks again).
local function counting(s)
  local k = 0
  return function() k = k + 1; return string.sub(s, k, k) end, function() return k end
end
for _, s in ipairs{"*a = 123", "local a = 1 + + 2 return a", "x = 1 y = 2 ?",
                   "--[[ long comment", "x = [[", "return 1", "", "x = 'abc"} do
  local reader, calls = counting(s)
  local f, msg = load(reader, "=chunk")
  print(string.format("%q", s), f ~= nil, msg, calls())
end
local k = 0
local function run(...)
  local n = select('#', ...)
  local r = {...}
  r[n + 1] = k
  print(unpack(r, 1, n + 1))
end
run(load(function() k = k + 1; if k == 1 then return "x = " end end))
k = 0
run(load(function() k = k + 1 end) ~= nil)
-- A reader's error ends the load, even past a syntax error: the lexer reads one byte ahead.
-- (Inside pcall: at the top level lua.c's message handler would append a traceback.)
k = 0
run(pcall(load, function() k = k + 1; if k == 1 then return "x = =" end error("late") end))
k = 0
run(pcall(load, function() k = k + 1; if k == 1 then return "x = " end error("early", 0) end))
print(pcall(load, function() return {} end))
