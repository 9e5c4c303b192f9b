-- collectgarbage with every option of 5.1: "collect" (the default), "count" (a positive
-- number of kilobytes), "stop"/"restart", "step", "setpause"/"setstepmul" (returning the old
-- values), and an invalid option.
print(collectgarbage())
print(collectgarbage("collect"))
local kb = collectgarbage("count")
print(type(kb), kb > 0)
-- Garbage becomes collectable and "count" stays a number.
do local t = {} for i = 1, 10000 do t[i] = {i} end end
local before = collectgarbage("count")
collectgarbage("collect")
local after = collectgarbage("count")
print(type(before), type(after), after > 0)
print(collectgarbage("stop"))
print(collectgarbage("restart"))
local s = collectgarbage("step")
print(type(s))
print(type(collectgarbage("step", 100)))
-- Finish any cycle so the step results are deterministic: a large step completes one.
collectgarbage("collect")
print(collectgarbage("setpause", 150))
print(collectgarbage("setpause", 200))
print(collectgarbage("setstepmul", 300))
print(collectgarbage("setstepmul", 200))
print(pcall(collectgarbage, "bogus"))
print(pcall(collectgarbage, 1))
print(pcall(collectgarbage, {}))
print(pcall(function() collectgarbage("nothing") end))
-- Weak-valued tables lose unreferenced entries after a full collection.
local weak = setmetatable({}, {__mode = "v"})
weak[1] = {}
local keep = {}
weak[2] = keep
collectgarbage()
print(weak[1], weak[2] == keep)
