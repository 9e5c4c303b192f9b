-- table.sort uses the length operator: for {2, 1, nil, 4} that is 4 in 5.1, so the nil is
-- compared and sorting fails with "attempt to compare nil with number".
local t = {2, 1, nil, 4}
print(#t)
print(pcall(table.sort, t))
local u = {3, nil, 1}
print(#u, pcall(table.sort, u))
