-- Generic for over ipairs, pairs and next (which the interpreter steps without calling them):
-- holes, extra loop variables, __index ignored by ipairs, clearing fields while traversing,
-- an invalid key to next (5.1 gives no position: the error is raised inside next).
local t = {10, 20, 30, nil, 50, x = 1, y = 2}
for i, v in ipairs(t) do print(i, v) end
for i in ipairs(t) do io.write(i, " ") end print()
for i, v, extra in ipairs(t) do io.write(tostring(extra), " ") end print()
local keys = {}
for k, v in pairs(t) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(v) end
table.sort(keys) print(table.concat(keys, " "))
for k in pairs(t) do t[k] = nil end
print(next(t))
local n = 0
for k, v in next, {a = 1, b = 2, c = 3} do n = n + v end print(n)
local ok, e = pcall(function() for k, v in next, {a = 1}, "zz" do end end) print(ok, e)
local ok, e = pcall(function() for k, v in ipairs(nil) do end end) print(ok, e)
local s = setmetatable({}, {__index = function(_, i) if i < 4 then return i * 2 end end})
for i, v in ipairs(s) do print("mt", i, v) end
local big = {} for i = 1, 100 do big[i] = i end big[50] = nil
local c = 0 for i, v in ipairs(big) do c = c + 1 end print(c)
c = 0 for k, v in pairs(big) do c = c + v end print(c)
local co = coroutine.wrap(function() for i, v in ipairs({1,2,3}) do coroutine.yield(v) end end)
print(co(), co(), co())
