-- A tail call moves its callee and arguments down over the caller's frame, and a vararg
-- function's entry moves its fixed parameters up past the extra arguments: every count from
-- none to past an unrolled copy's width, into fixed and vararg callees, in long tail loops
-- (constant stack) and from vararg callers (whose frames were moved).
local function show(...)
  local t = { n = select("#", ...), ... }
  local parts = {}
  for i = 1, t.n do parts[#parts + 1] = tostring(t[i]) end
  return t.n .. ":" .. table.concat(parts, ",")
end
local function fixed(a, b, c, d, e, f, g, h, i, j)
  return show(a, b, c, d, e, f, g, h, i, j)
end
local function vararg3(a, b, c, ...)
  return show(a, b, c, "|", ...)
end
for n = 0, 12 do
  local args = {}
  for i = 1, n do args[i] = i * 11 end
  local function tail_fixed() return fixed(unpack(args, 1, n)) end
  local function tail_vararg() return vararg3(unpack(args, 1, n)) end
  local function tail_show(...) return show(...) end
  print(n, tail_fixed(), tail_vararg(), tail_show(unpack(args, 1, n)))
end
-- A vararg function tail-calling: its frame was moved above its extra arguments.
local function relay(depth, ...)
  if depth == 0 then return show(...) end
  return relay(depth - 1, depth, ...)
end
print(relay(9, "a", "b"))
-- Tail loops of a million hops keep the stack flat, with arguments moving every time.
local function count(n, a, b, c, d, e)
  if n == 0 then return a + b + c + d + e end
  return count(n - 1, b, c, d, e, a + 1)
end
print(count(1000000, 1, 2, 3, 4, 5))
local function vcount(n, ...)
  if n == 0 then return select("#", ...), ... end
  return vcount(n - 1, ...)
end
print(vcount(300000, 1, nil, 3, nil))
