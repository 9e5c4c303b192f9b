-- string.len, string.byte and string.sub are written in the semantics for their common cases
-- (one byte; integer bounds) and hand the rest to their native twins: both sides of each.
local function show(...) local t = {select('#', ...), ...} for i = 2, t[1] + 1 do t[i] = tostring(t[i]) end print(table.concat(t, " ", 1, t[1] + 1)) end
local s = "hello"
show(s:len(), string.len(""), pcall(string.len), pcall(string.len, 42), string.len(42))
show(s:byte(), s:byte(1), s:byte(5), s:byte(-1), s:byte(-5), s:byte(0), s:byte(6), s:byte(-6), s:byte(1.5), s:byte("2"), s:byte(1, 3), s:byte(2, 1))
show(("")["byte"](""), pcall(string.byte), pcall(string.byte, s, {}), string.byte(12, 1), s:byte(2^31), s:byte(-2^31))
show(s:sub(1), s:sub(2), s:sub(-3), s:sub(2, 3), s:sub(0), s:sub(-100, 100), s:sub(3, 2), s:sub(6), s:sub(5, 5), s:sub(1, -1), s:sub(1, 0))
show(s:sub(2.7, 3.2), s:sub("2", "3"), s:sub(2, nil), pcall(string.sub, s), pcall(string.sub, s, {}), string.sub(12345, 2, 3), s:sub(2^31), s:sub(-2^40, 2))
show(s:sub(1, 5) == s, rawequal(s:sub(1, 5), s), s:sub(2, 2) == "e", s:sub(100), s:sub(7, 9), s:sub(100, 200), s:sub(-100, -50))
local t = {}
for i = 1, 100000 do t[#t + 1] = ("abcdefghij"):sub(i % 10 + 1, i % 10 + 3) end
show(#t, t[1], t[100000])
