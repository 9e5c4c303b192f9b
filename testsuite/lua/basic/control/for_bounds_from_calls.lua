-- Loop bounds computed by calls: the call frames must be released before the loop variable
-- is allocated, or the body reads a stale slot instead of the variable.
local function f(n)
  while n > 0 do
    local parts = {}
    for i = 1, math.min(4, n) do parts[#parts + 1] = i end
    print(n, table.concat(parts, ","))
    n = n - 4
  end
end
f(10)
for i = tonumber("2"), select(2, 0, 5), math.max(1, 2) do io.write(i, " ") end print()
for i = (function() return 3 end)(), 1, -1 do local sq = i * i; io.write(sq, " ") end print()
local t = {s = "abc"}
for i = 1, t.s:len() do print(i, t.s:sub(i, i), t.s:byte(i)) end
local x = tostring(12)
local y = #x + string.len(x)
print(x, y)
