-- Strings made and dropped by the ten thousand while the collector runs: the interning
-- set removes the dead ones in place (moving later strings of a probe run back), so every
-- string that survives must still be found by its bytes, a string made again from the same
-- bytes must be the one that survived (equal, the same table key), and a dropped one must
-- come back as a new string that is still equal to a literal.
local keep, keys = {}, {}
for i = 1, 1000 do
  local s = "keep:" .. i .. ":" .. string.rep("x", i % 40)
  keep[i] = s
  keys[s] = i
end

local function churn(round, n)
  local made = 0
  for i = 1, n do
    -- lengths from 5 to about 70 bytes; now and then a survivor made again
    local s = "t" .. round .. ":" .. i .. string.rep("y", i % 60)
    if #s > 0 then made = made + 1 end
    if i % 97 == 0 then
      local again = "keep:" .. (i % 1000 + 1) .. ":" .. string.rep("x", (i % 1000 + 1) % 40)
      assert(keys[again] == i % 1000 + 1, "a survivor made again is the same key")
    end
  end
  return made
end

collectgarbage("setpause", 100)
collectgarbage("setstepmul", 400)
local total = 0
for round = 1, 6 do
  total = total + churn(round, 5000)
  if round % 2 == 0 then collectgarbage() else collectgarbage("step", 50) end
end
print("made", total)

-- every survivor by its bytes, as a key and by equality
local found = 0
for i = 1, 1000 do
  local s = "keep:" .. i .. ":" .. string.rep("x", i % 40)
  if keys[s] == i and s == keep[i] and rawequal(s, keep[i]) then found = found + 1 end
end
print("survivors found", found)

-- half of the survivors dropped and collected, then made again from their bytes
for i = 1, 1000, 2 do keys[keep[i]] = nil; keep[i] = nil end
collectgarbage()
collectgarbage()
local back, still = 0, 0
for i = 1, 1000 do
  local s = "keep:" .. i .. ":" .. string.rep("x", i % 40)
  if i % 2 == 1 then
    keys[s] = -i
    if keys["keep:" .. i .. ":" .. string.rep("x", i % 40)] == -i then back = back + 1 end
  elseif keys[s] == i and s == keep[i] then
    still = still + 1
  end
end
print("made again", back, "kept", still)

-- literals equal strings built at run time after all of that
local lit = "keep:10:xxxxxxxxxx"
print(lit == "keep:" .. 10 .. ":" .. string.rep("x", 10), keys[lit])

-- a string table grown, emptied and refilled: counts of distinct strings
local seen, distinct = {}, 0
for r = 1, 3 do
  for i = 1, 6000 do
    local s = "d" .. (i * 7919 % 6007)
    if not seen[s] then seen[s] = true; distinct = distinct + 1 end
  end
  if r < 3 then seen = {}; distinct = 0; collectgarbage() end
end
print("distinct", distinct)
