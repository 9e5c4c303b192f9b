-- Table constructors with keyed fields (`name = v` and `[expr] = v`), mixed with
-- positional fields, and what wins when the same key is given twice.
local t = {x = 1, y = 2, ["z"] = 3, [10] = "ten", [2 + 3] = "five"}
print(t.x, t.y, t.z, t[10], t[5], t["x"])
-- Keys of every usable type.
local k = {[true] = "T", [false] = "F", [1.5] = "one and a half", ["with space"] = "s"}
print(k[true], k[false], k[1.5], k["with space"])
-- Mixed positional and keyed: positional fields count from 1 regardless of the keys.
local m = {"a", x = "X", "b", [3] = "ignored?", "c"}
print(m[1], m[2], m[3], m.x, #m)
-- An explicit [1] before positional fields is overwritten by the positional one.
local o = {[1] = "explicit", "positional"}
print(o[1])
-- The same name twice: the last assignment wins.
local d = {a = 1, a = 2}
print(d.a)
-- Keys computed by calls are evaluated in order.
local log = {}
local function key(v) log[#log + 1] = "k" .. v return v end
local function val(v) log[#log + 1] = "v" .. v return v end
local c = {[key("p")] = val("1"), [key("q")] = val("2")}
print(c.p, c.q, table.concat(log, " "))
-- Keyed nil values do not create entries.
local n = {a = nil, b = 2}
local count = 0
for _ in pairs(n) do count = count + 1 end
print(count, n.a, n.b)
-- Keywords can't be names but work as string keys.
local kw = {["end"] = 1, ["while"] = 2, ["nil"] = 3}
print(kw["end"], kw["while"], kw["nil"])
-- Field names are plain strings.
local f = {name = "n"}
print(f.name == f["name"], rawget(f, "name"))
