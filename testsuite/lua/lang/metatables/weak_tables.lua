-- Weak tables (__mode "k", "v", "kv"): after a full collection, entries whose weak
-- key or value was only reachable through the table are removed; strings, numbers and
-- booleans are values, never collected. Only counts are printed. Garbage is made in
-- helper functions so that no live stack slot still refers to it.
local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end
-- Weak values.
local wv = setmetatable({}, {__mode = "v"})
local keep = {}
local function fill_values()
  for i = 1, 10 do
    local v = {i}
    wv[i] = v
    if i % 2 == 0 then keep[#keep + 1] = v end
  end
end
fill_values()
wv.str = "a string"
wv.num = 12
wv.bool = true
collectgarbage("collect")
print("weak values", count(wv), wv.str, wv.num, wv.bool)
-- Weak keys.
local wk = setmetatable({}, {__mode = "k"})
local held = {}
local function fill_keys()
  for i = 1, 10 do
    local k = {}
    wk[k] = i
    if i <= 3 then held[#held + 1] = k end
  end
end
fill_keys()
wk["strkey"] = 1
wk[42] = 2
collectgarbage("collect")
print("weak keys", count(wk), wk.strkey, wk[42])
local sum = 0
for _, k in ipairs(held) do sum = sum + wk[k] end
print("held sum", sum)
-- Both weak.
local wkv = setmetatable({}, {__mode = "kv"})
local anchor = {}
local function fill_kv()
  wkv[anchor] = {}
  wkv[{}] = anchor
  wkv[anchor] = anchor
  wkv.x = {}
  wkv.y = anchor
end
fill_kv()
collectgarbage("collect")
print("weak kv", count(wkv), wkv[anchor] == anchor, wkv.y == anchor, wkv.x)
-- Strong table keeps everything.
local strong = {}
for i = 1, 10 do strong[{}] = {} end
collectgarbage("collect")
print("strong", count(strong))
-- Releasing the references later lets them go.
keep = nil
collectgarbage("collect")
print("after release", count(wv))
held = nil
collectgarbage("collect")
print("after release keys", count(wk))
-- Functions (closures) as weak values.
local wf = setmetatable({}, {__mode = "v"})
local kept_fn = function() return 1 end
wf[1] = kept_fn
local function fill_functions()
  for i = 2, 5 do local up = i wf[i] = function() return up end end
end
fill_functions()
collectgarbage("collect")
local nf = 0
for k in pairs(wf) do nf = nf + 1 end
print("weak functions", nf, wf[1] == kept_fn)
-- A weak-keyed cache keyed by objects.
local cache = setmetatable({}, {__mode = "k"})
local function area(r) if not cache[r] then cache[r] = r.w * r.h end return cache[r] end
local r1 = {w = 2, h = 3}
local function temp_area() return area({w = 4, h = 5}) end
print(area(r1), temp_area())
collectgarbage("collect")
print("cache", count(cache), cache[r1])
