-- Lua 5.1 counts every coroutine.resume (and coroutine.wrap call) as a nested C call
-- (nCcalls, LUAI_MAXCCALLS = 200): resuming a coroutine that resumes another, about 200 deep,
-- fails with "C stack overflow", which each level's wrap re-raises with its position.
local function nest(n)
  if n == 0 then return "bottom" end
  local co = coroutine.wrap(function() return nest(n - 1) end)
  return co()
end
for _, n in ipairs({ 10, 150, 190, 250, 1000 }) do
  local ok, msg = pcall(nest, n)
  print(n, ok, (string.gsub(msg, "^.*: ", "")))
end
local function nest_resume(n)
  if n == 0 then return true, "bottom" end
  local co = coroutine.create(function() return nest_resume(n - 1) end)
  local ok, a, b = coroutine.resume(co)
  if not ok then return false, a end
  return a, b
end
for _, n in ipairs({ 150, 250 }) do
  local ok, msg = nest_resume(n)
  print("resume", n, ok, msg)
end
