-- One-byte strings are interned once and kept: every way of making one (sub, char, byte
-- round trips, concatenation, captures, gsub, reverse, rep, format, tostring) gives the same
-- string, equal to literals, usable as table keys across collections.
local t = {}
for i = 0, 255 do t[string.char(i)] = i end
collectgarbage()
local same = 0
for i = 0, 255 do
  local c = string.char(i)
  if t[c] == i and c:byte() == i and #c == 1 and ("x" .. c):sub(2, 2) == c and c:rep(1) == c then same = same + 1 end
end
print(same)
local s = "hello, world"
local parts = {}
for ch in s:gmatch(".") do parts[#parts + 1] = ch end
print(#parts, table.concat(parts, "|"), parts[1] == "h", s:sub(-1) == "d", s:sub(5, 5) .. s:sub(1, 1))
print(("a"):reverse() == "a", string.format("%s", "z") == "z", tostring(7) == "7", ("ab"):gsub("b", "") == "a")
print(s:match("(,)") == ",", select(2, s:gsub(".", {h = "H"})), ("\0"):byte(), #"\0")
-- many short-lived one-byte strings while the collector runs
collectgarbage("setpause", 100)
collectgarbage("setstepmul", 200)
local count = 0
for round = 1, 20 do
  local keep = {}
  for i = 1, 2000 do
    local c = string.char((i * round) % 256)
    keep[#keep + 1] = c .. c
    if t[c] == (i * round) % 256 then count = count + 1 end
  end
  collectgarbage("step", 1)
end
print(count)
