-- In 5.1 a tail call leaves a "(tail call)" pseudo-level on the stack: debug.getinfo sees it
-- as a level with what = "tail" (source "=(tail call)", currentline -1), so the depth counts
-- one more level per lost frame.
local function depth()
  local n = 0
  while debug.getinfo(n + 1, "S") do n = n + 1 end
  return n
end
local d0 = depth()
local function nest(k) if k == 0 then return depth() end local r = nest(k - 1) return r end
print(nest(3) - d0, nest(0) - d0)
local function show() local i = debug.getinfo(2, "Sl") return i.what, i.source, i.short_src, i.currentline end
local function tail() return show() end
print(tail())
