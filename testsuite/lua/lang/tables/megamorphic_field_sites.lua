-- Field and global sites that see more hidden classes than their chain of stubs takes (four):
-- the JIT gives such a site its own copy of the generic code, which must behave as the
-- generic code everywhere else does: metamethods (`__index` and `__newindex` functions and
-- tables, with their results coming back through the instruction's continuations), absent
-- keys, errors with their messages, and values that are not tables at all.

local function get_x(o) return o.x end
local function set_x(o, v) o.x = v end

-- Twelve classes: more than a chain takes, and more than the cache in the bytecode has ways,
-- so the site keeps missing and refilling.
local objects = {}
for i = 1, 12 do
  local o = {}
  o["pad" .. i] = i
  o.x = i
  objects[i] = o
end

local sum = 0
for round = 1, 20 do
  for i = 1, #objects do
    sum = sum + get_x(objects[i])
    set_x(objects[i], get_x(objects[i]) + 1)
  end
end
print("plain", sum, objects[1].x, objects[12].x)

-- The same sites, now megamorphic, meet metatables.
local log = {}
local index_fn = setmetatable({pad = 0}, {__index = function(t, k) log[#log + 1] = "index " .. k return 100 end})
local index_tbl = setmetatable({pad2 = 0}, {__index = {x = 200}})
local newindex_fn = setmetatable({pad3 = 0}, {__newindex = function(t, k, v) log[#log + 1] = "newindex " .. k .. "=" .. v rawset(t, "seen", v) end})
local newindex_tbl_target = {}
local newindex_tbl = setmetatable({pad4 = 0}, {__newindex = newindex_tbl_target})
local absent = {pad5 = 0}
for round = 1, 3 do
  print("index fn", get_x(index_fn), "index table", get_x(index_tbl), "absent", get_x(absent))
  set_x(newindex_fn, round)
  set_x(newindex_tbl, round * 10)
  print("newindex", rawget(newindex_fn, "x"), newindex_fn.seen, rawget(newindex_tbl, "x"), newindex_tbl_target.x)
end
print(table.concat(log, ","))

-- Errors from a megamorphic site: indexing nil, a number, a string's missing field.
for _, v in ipairs({false, 42, "str"}) do
  local ok, err = pcall(get_x, v)
  print("get", type(v), ok, ok and tostring(err) or err:gsub("^.-:%d+: ", ""))
end
for _, v in ipairs({false, 42}) do
  local ok, err = pcall(set_x, v, 1)
  print("set", type(v), ok, (err:gsub("^.-:%d+: ", "")))
end

-- Removing and re-adding the field at a megamorphic site.
for i = 1, 4 do objects[i].x = nil end
local missing = 0
for i = 1, #objects do if get_x(objects[i]) == nil then missing = missing + 1 end end
for i = 1, 4 do set_x(objects[i], -i) end
print("removed", missing, get_x(objects[1]), get_x(objects[4]), get_x(objects[5]))

-- Global sites whose environment changes shape under them (setfenv with many tables).
local function read_g() return g end
local function write_g(v) g = v end
for round = 1, 3 do
  for i = 1, 12 do
    local env = {g = i}
    env["k" .. i] = true
    setfenv(read_g, env)
    setfenv(write_g, env)
    write_g(read_g() + round)
    sum = sum + read_g() + env.g
  end
end
print("globals", sum)
-- A megamorphic global site meets an environment with __index and __newindex functions.
local seen = {}
local env = setmetatable({}, {
  __index = function(_, k) seen[#seen + 1] = "get " .. k return 1000 end,
  __newindex = function(t, k, v) seen[#seen + 1] = "set " .. k .. "=" .. v rawset(t, "stored", v) end,
})
setfenv(read_g, env)
setfenv(write_g, env)
write_g(read_g() + 1)
print("global metamethods", rawget(env, "g"), env.stored, table.concat(seen, ","))
