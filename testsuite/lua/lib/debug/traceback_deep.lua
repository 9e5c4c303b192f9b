-- debug.traceback of deep stacks cuts like 5.1's: the levels from the one asked for up to
-- level 11, "...", and the last 10.
local function r(n) if n == 0 then error("x") end local v = r(n-1) return v end
print(select(2, xpcall(function() r(40) end, debug.traceback)))
print(debug.traceback("m", 0))
local function rr(n) if n == 0 then print(debug.traceback("lvl3", 3)) return end local v = rr(n-1) return v end
rr(30)
rr(21)
rr(20)
local function rs(n) if n == 0 then print(debug.traceback("lvl14", 14)) return end local v = rs(n-1) return v end
rs(40)
rs(24)
