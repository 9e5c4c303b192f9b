-- debug.sethook/debug.gethook: with no hook gethook returns nothing useful (nil), a "l"
-- (line) hook sees the lines of a small function, a "c"/"r" hook sees call and return
-- events, a count hook fires, gethook returns the function, mask and count, and sethook()
-- removes the hook.
print(debug.gethook())
local lines = {}
local function target()
  local a = 1
  local b = a + 1
  return b
end
debug.sethook(function(event, line) if event == "line" then lines[#lines + 1] = line end end, "l")
target()
debug.sethook()
print(table.concat(lines, " "))
local events = {}
debug.sethook(function(event) events[#events + 1] = event end, "cr")
target()
debug.sethook()
print(table.concat(events, " "))
local count = 0
debug.sethook(function(event) if event == "count" then count = count + 1 end end, "", 1)
for i = 1, 10 do local x = i * 2 end
debug.sethook()
print(count > 0)
local function hook() end
debug.sethook(hook, "crl", 5)
local h, mask, n = debug.gethook()
debug.sethook()
print(h == hook, mask, n)
print(debug.gethook())
print(pcall(debug.sethook, 1, "l"))
