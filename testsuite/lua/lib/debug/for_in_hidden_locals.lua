-- The hidden locals of a generic `for` through the debug library: a `next` loop keeps its
-- traversal's place in its control slot, and `debug.getlocal` must show the key there (as 5.1
-- holds it), `debug.setlocal` on the control, the generator or the state must act on the loop
-- as in 5.1, and a loop left by `break` shows its last key as a temporary.

-- The index of the innermost local called `wanted` of the function at `level`.
local function find(level, wanted)
  local found
  local i = 1
  while true do
    local name = debug.getlocal(level + 1, i)
    if not name then return found end
    if name == wanted then found = i end
    i = i + 1
  end
end

local function control(level)
  local _, value = debug.getlocal(level + 1, find(level + 1, "(for control)"))
  return value
end

local function set(level, name, value)
  debug.setlocal(level + 1, find(level + 1, name), value)
end

-- The control slot over the array part, the named slots and the hash part.
local t = { 10, 20, 30 }
local seen = {}
for k, v in pairs(t) do
  seen[#seen + 1] = tostring(control(1)) .. ":" .. tostring(k)
end
print("array", table.concat(seen, " "))

local d = {}
for i = 1, 5 do d["k" .. i] = i end
local count = 0
for k, v in pairs(d) do
  assert(control(1) == k, "control is the key")
  count = count + 1
end
print("dictionary", count)

local r = { x = 1, y = 2, z = 3 }
for k in pairs(r) do
  assert(control(1) == k)
end
print("record ok")

-- Every local of a function's frame, in a loop.
local function all_locals()
  local out = {}
  for k, v in pairs({ 7 }) do
    local i = 1
    while true do
      local name, value = debug.getlocal(1, i)
      if not name then break end
      if type(value) ~= "table" and type(value) ~= "function" then
        out[#out + 1] = name .. "=" .. tostring(value)
      else
        out[#out + 1] = name .. "=" .. type(value)
      end
      i = i + 1
    end
  end
  return table.concat(out, " ")
end
print(all_locals())

-- setlocal of the control: the traversal goes on after the key set.
local a = { 1, 2, 3, 4, 5, 6 }
local visited = {}
for k, v in pairs(a) do
  visited[#visited + 1] = k
  if k == 2 then set(1, "(for control)", 4) end
end
print("skipped", table.concat(visited, " "))

-- setlocal of the generator: the new one is called with the state and the key.
local calls = {}
local function gen(s, c)
  calls[#calls + 1] = tostring(c)
  if c == 2 then return 99, "x" end
  return nil
end
for k, v in pairs(a) do
  if k == 2 then set(1, "(for generator)", gen) end
  calls[#calls + 1] = "body " .. k
end
print("generator", table.concat(calls, " "))

-- setlocal of the state: `next` goes on in the new table from the key (an error for a key it
-- lacks).
local other = { 100, 200, 300, 400 }
local got = {}
for k, v in pairs(a) do
  got[#got + 1] = v
  if k == 1 then set(1, "(for state)", other) end
end
print("state", table.concat(got, " "))
local ok, err = pcall(function()
  for k, v in pairs({ p = 1, q = 2 }) do
    set(1, "(for state)", { z = 1 })
  end
end)
print("state without the key", ok, err)

-- A loop left by `break`: its slots read as temporaries hold the last key.
local function after_break()
  do
    for k, v in pairs({ 5, 6, 7 }) do
      if k == 2 then break end
    end
  end
  local names = {}
  for i = 1, 4 do
    local name, value = debug.getlocal(1, i)
    if name then names[#names + 1] = name .. "=" .. type(value) .. (type(value) == "number" and tostring(value) or "") end
  end
  return table.concat(names, " ")
end
print("after break", after_break())

-- A coroutine's loop, read from outside while it is suspended.
local co = coroutine.create(function()
  for k, v in pairs({ "a", "b", "c" }) do coroutine.yield(k) end
end)
for _ = 1, 3 do
  local _, k = coroutine.resume(co)
  local name, value = debug.getlocal(co, 1, 3)
  print("coroutine", k, name, value)
end

-- A key removed during its own step and collected: the control slot must never hand out a
-- freed object (5.1 keeps the key alive in the slot; a place shows nil for a collectable key
-- whose entry is gone).
do
  local t = {}
  for i = 1, 20 do t[{}] = i; t["s" .. i .. "x"] = i end
  local ok = true
  for k, v in pairs(t) do
    t[k] = nil
    k = nil
    collectgarbage()
    local c = control(1)
    if c ~= nil and type(c) ~= "table" and type(c) ~= "string" then ok = false end
    if type(c) == "string" then c = c .. "!" end
  end
  print("removed and collected", ok, next(t))
end
