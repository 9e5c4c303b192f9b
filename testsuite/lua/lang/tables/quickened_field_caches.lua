-- The table bytecodes' caches are fused into the opcode: a site quickens to the kind of the
-- last table it cached (named slots inline or out of line, metatable or not). Each case below
-- changes what a quickened site's kind assumed, and the site must still answer right.

local function get(o) return o.x end
local function set(o, v) o.x = v end

-- A nil field of a table without metatable: the no-metatable kind answers nil without asking.
local t = {x = 1}
t.x = nil
for _ = 1, 3 do print("plain nil", get(t)) end
-- Now it gets a metatable: the same site must see __index.
setmetatable(t, {__index = function(_, k) return "index " .. k end})
for _ = 1, 3 do print("after setmetatable", get(t)) end
-- And loses it again.
setmetatable(t, nil)
for _ = 1, 3 do print("after removing it", get(t)) end

-- __newindex on a nil field appears after the site quickened for a plain table.
local log = {}
local u = {x = 1}
u.x = nil
for i = 1, 2 do set(u, nil) end
setmetatable(u, {__newindex = function(_, k, v) log[#log + 1] = k .. "=" .. tostring(v) end})
set(u, 5)
print("newindex", table.concat(log, ","), rawget(u, "x"))

-- Named slots move out of the object while a site holds the inline kind.
local w = {x = 10, y = 20}
for _ = 1, 3 do print("inline", get(w)) end
for i = 1, 12 do w["k" .. i] = i end
for _ = 1, 3 do print("moved out", get(w)) end
set(w, 11)
print("set after move", w.x, w.k12)

-- One site alternating between kinds.
local a, b = {x = "a"}, setmetatable({}, {__index = {x = "b"}})
for i = 1, 3 do b["f" .. i] = i end
for i = 1, 6 do print("alternate", get(i % 2 == 0 and a or b)) end

-- A dictionary (too many keys for a shape) and its rehashes.
local d = {}
for i = 1, 80 do d["key" .. i] = i end
d.x = "dict"
for _ = 1, 3 do print("dictionary", get(d)) end
for i = 81, 300 do d["key" .. i] = i end
for _ = 1, 3 do print("after rehash", get(d)) end

-- Globals (the environment is a dictionary) with a metatable set later.
gx = 1
local function getg() return gx end
local function setg(v) gx = v end
for i = 1, 3 do setg(i) print("global", getg()) end
gx = nil
setmetatable(_G, {__index = function(_, k) return "global " .. k end})
print("global via __index", getg())
setmetatable(_G, nil)
print("global again", getg())
