-- The library functions written in the semantics (type, select, rawget, rawequal, next, pairs,
-- ipairs, unpack, assert, getmetatable, tostring, tonumber) answer the common cases in
-- generated code and hand everything else to their native twins: each case on both sides of
-- that line, with the errors 5.1 words.
local function show(...)
  local t = {select('#', ...), ...}
  for i = 2, t[1] + 1 do
    local v = t[i]
    t[i] = (type(v) == "table" or type(v) == "function" or type(v) == "thread") and type(v) or tostring(v)
  end
  print(table.concat(t, " ", 1, t[1] + 1))
end

-- type
show(type(nil), type(true), type(1), type("s"), type({}), type(print), type(coroutine.create(function() end)), type(io.stdout))
show(pcall(type))
for i = 1, 3 do show(type(i), type(type)) end

-- select
show(select('#'), select('#', nil, nil), select('#x', 1, 2), select(1, 'a', 'b', 'c'), select(3, 'a', 'b', 'c'))
show(select(-1, 'a', 'b', 'c'), select(-3, 'a', 'b', 'c'), select(5, 'a', 'b'), select(2.7, 'a', 'b', 'c'))
show(select("2", 'a', 'b', 'c'), select(" 3 ", 'a', 'b', 'c'))
show(pcall(select, 0, 'a')); show(pcall(select, -5, 'a')); show(pcall(select)); show(pcall(select, nil)); show(pcall(select, "x"))
show(pcall(select, {}, 1)); show(pcall(select, 2^31 + 1, "a", "b")); show(select(2^32 + 2, "a", "b")); show(pcall(select, -2^31, 'a'))

-- rawget, rawequal
local t = setmetatable({10, 20, x = "x"}, {__index = function() return "meta" end})
show(rawget(t, 1), rawget(t, 2), rawget(t, 3), rawget(t, "x"), rawget(t, "y"), t.y, rawget(t, 0/0), rawget(t, nil))
show(pcall(rawget, "s", 1)); show(pcall(rawget, t)); show(pcall(rawget))
show(rawequal(0, -0), rawequal(0/0, 0/0), rawequal("a", "a"), rawequal(t, t), rawequal(t, {}), rawequal(nil, nil), rawequal(1, "1"))
show(pcall(rawequal, 1)); show(pcall(rawequal))

-- next, pairs, ipairs
show(next({})); show(next({}, nil)); show(next({5})); show(next({5}, 1)); show(next({a = 1}, "a"))
show(pcall(next, {}, "missing")); show(pcall(next)); show(pcall(next, 1))
show(pairs({}) == next, select('#', pairs({})), select(3, pairs({})))
show(pcall(pairs)); show(pcall(pairs, nil)); show(pcall(pairs, "s"))
local f, s, c = ipairs({})
show(type(f), c, f == select(1, ipairs({1})), f({7, 8}, 0), f({7, 8}, 1), f({7, 8}, 2))
show(pcall(ipairs)); show(pcall(ipairs, 1))
local keys = {}
for k, v in pairs({1, 2, 3, a = 4, b = 5}) do keys[#keys + 1] = tostring(k) .. "=" .. v end
table.sort(keys); show(unpack(keys))
local sum = 0
for i, v in ipairs({1, 2, 3, nil, 5}) do sum = sum + i * v end
show(sum)
-- a pairs loop that removes entries while it runs
local big = {}
for i = 1, 100 do big["k" .. i] = i end
for k in pairs(big) do big[k] = nil end
show(next(big))

-- unpack
show(unpack({})); show(unpack({1, 2, 3})); show(unpack({1, nil, 3})); show(unpack({1, 2, nil}))
show(unpack({1, 2, 3, x = 1})); show(unpack({1, 2, 3}, 2)); show(unpack({1, 2, 3}, 2, 5)); show(unpack({1, 2}, -1, 1))
show(unpack(setmetatable({}, {__index = function(_, i) return i end}), 1, 3))
local h = {} h[1] = 1 h[2] = 2 h[4] = 4
show(select('#', unpack(h)))
show(pcall(unpack)); show(pcall(unpack, "s")); show(pcall(unpack, {}, 1, 1e8))
local many = {} for i = 1, 5000 do many[i] = i end
show(select('#', unpack(many)), (select(5000, unpack(many))))

-- assert
show(assert(1, 2, 3)); show(assert(true)); show(assert(0, nil))
show(pcall(assert, false)); show(pcall(assert, nil, "message")); show(pcall(assert, false, 42))
show(pcall(assert)); show(pcall(assert, false, {}))

-- getmetatable
local mt = {}
show(getmetatable({}), getmetatable(setmetatable({}, mt)) == mt, getmetatable(setmetatable({}, {__metatable = "locked"})))
show(getmetatable("s").__index == string, getmetatable(1), getmetatable(nil), pcall(getmetatable))
show(getmetatable(setmetatable({}, {__metatable = false})))

-- tostring, tonumber
show(tostring("s"), tostring(1.5), tostring(nil), tostring(true), tostring(setmetatable({}, {__tostring = function() return "T" end})))
show(pcall(tostring))
getmetatable("").__tostring = function(s) return "<" .. s .. ">" end
show(tostring("s"))
getmetatable("").__tostring = nil
show(tostring("s"))
show(tonumber(1), tonumber(-0), tonumber("0x10"), tonumber(" 5 "), tonumber("z", 36), tonumber("10", 2), tonumber(nil), tonumber({}))
show(pcall(tonumber)); show(pcall(tonumber, 1, 1)); show(tonumber(1, 10))
