-- ipairs, pairs and next: the values they return, iteration order of the array part,
-- stopping at the first nil, next with a key, next on an empty table, modifying fields
-- during traversal, and the argument errors (including an invalid key to next).
local t = {10, 20, 30, nil, 50}
for i, v in ipairs(t) do io.write(i, "=", v, " ") end print()
local f, s, c = ipairs(t)
print(type(f), s == t, c)
print(f(t, 0))
print(f(t, 2))
print(ipairs({}) == f)
local keys = {}
for k, v in pairs({a = 1, b = 2, c = 3, 1, 2}) do keys[#keys + 1] = tostring(k) .. ":" .. v end
table.sort(keys)
print(table.concat(keys, " "))
local pf, ps, pc = pairs(t)
print(type(pf), ps == t, pc)
print(next({}))
print(next({7}))
print(next({7}, 1))
local one = {x = "only"}
print(next(one))
print(next(one, "x"))
print(pcall(next, {}, "missing"))
print(pcall(next))
print(pcall(next, 1))
print(pcall(ipairs))
print(pcall(ipairs, nil))
print(pcall(pairs))
print(pcall(pairs, "str"))
print(pcall(function() for k in pairs(nil) do end end))
print(pcall(function() for k in ipairs(5) do end end))
-- Clearing fields during traversal is allowed.
local clear = {}
for i = 1, 20 do clear["k" .. i] = i end
local n = 0
for k in pairs(clear) do clear[k] = nil n = n + 1 end
print(n, next(clear))
-- Assigning to existing fields during traversal is allowed too.
local upd = {a = 1, b = 2, c = 3}
for k, v in pairs(upd) do upd[k] = v * 10 end
print(upd.a, upd.b, upd.c)
-- ipairs ignores __index in 5.1 (it uses raw access).
local proxy = setmetatable({}, {__index = function(_, i) if i <= 3 then return i * 2 end end})
local cnt = 0
for i, v in ipairs(proxy) do cnt = cnt + 1 end
print("ipairs over proxy", cnt)
-- Sum of an array part by ipairs and by numeric pairs keys.
local arr = {}
for i = 1, 100 do arr[i] = i end
local s1, s2 = 0, 0
for _, v in ipairs(arr) do s1 = s1 + v end
for k, v in pairs(arr) do s2 = s2 + k * v end
print(s1, s2)
