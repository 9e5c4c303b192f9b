-- Constructor lists are copied into the array part in place when they continue it within its
-- capacity and no hash part could hold their keys; every other shape goes to the runtime.
local function show(t, n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = tostring(t[i]) end
  return #parts .. ":" .. table.concat(parts, ",")
end
local function three() return 1, 2, 3 end
local function none() end
print(show({ 1, 2, 3 }, 3), #{ 1, 2, 3 })
print(show({ nil, nil, 3 }, 3))
print(show({ 1, nil }, 2))
print(show({ three() }, 3), #{ three() })
print(show({ three(), three() }, 4))
print(show({ none() }, 1), #{ none() }, next({ none() }))
print(show({ "a", none() }, 2))
print(show({ 1, 2, x = 3, 4 }, 3))
local keyed = { [1] = "hash one", [2] = "hash two", "list one" }
print(keyed[1], keyed[2])
local overlapped = { [3] = "three", 1, 2 }
print(show(overlapped, 3), #overlapped)
local big = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
  26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
  51, 52, 53, 54, 55, 56, 57, 58, 59, 60, three() }
print(#big, big[50], big[51], big[63])
local many = { unpack({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }) }
print(#many, many[10])
local function pack(...) return { n = select('#', ...), ... } end
local p = pack(nil, 2, nil)
print(p.n, p[1], p[2], p[3])
local mixed = { {}, "s", 1.5, true, false, print }
print(type(mixed[1]), mixed[2], mixed[3], mixed[4], mixed[5], mixed[6] == print)
for i = 1, 3 do
  local t = { i, i * 2, { i } }
  t[#t + 1] = "appended"
  print(show(t, 4):gsub("table: 0x%x+", "table"), t[3][1])
end
collectgarbage()
local survivors = {}
for i = 1, 2000 do survivors[i] = { i, tostring(i) } end
collectgarbage()
print(survivors[1][2], survivors[2000][1], survivors[1234][2])
