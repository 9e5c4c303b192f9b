-- Binary trees: allocation of many short-lived tables and a deep recursive walk (GC pressure).
local N = 14
local function make(d)
  if d == 0 then return { false, false } end
  d = d - 1
  return { make(d), make(d) }
end
local function check(t)
  if not t[1] then return 1 end
  return 1 + check(t[1]) + check(t[2])
end
local stretch = N + 1
print("stretch tree of depth " .. stretch .. "\t check: " .. check(make(stretch)))
local long_lived = make(N)
for d = 4, N, 2 do
  local iters = 2 ^ (N - d + 4)
  local c = 0
  for _ = 1, iters do c = c + check(make(d)) end
  print(string.format("%d\t trees of depth %d\t check: %d", iters, d, c))
end
print("long lived tree of depth " .. N .. "\t check: " .. check(long_lived))
