-- table.maxn (largest positive numeric key, including non-integers and keys beyond holes),
-- table.getn (the length operator), table.setn (obsolete in 5.1: always an error), and their
-- argument errors.
print(table.maxn({}), table.maxn({1, 2, 3}), table.maxn({[10] = 1}), table.maxn({1, nil, 3}))
print(table.maxn({[1.5] = true}), table.maxn({[-5] = 1}), table.maxn({a = 1, [2] = 2}), table.maxn({[0] = 1}))
local t = {1, 2, 3}
t[100] = 100
t[50.5] = 1
print(table.maxn(t), #t)
t[100] = nil
print(table.maxn(t))
print(table.getn({}), table.getn({1, 2}), table.getn({"a", "b", "c", nil}))
print(pcall(table.maxn))
print(pcall(table.maxn, "x"))
print(pcall(table.getn))
print(pcall(table.getn, 5))
print(pcall(table.setn, {}, 1))
print(pcall(function() return table.maxn(nil) end))
