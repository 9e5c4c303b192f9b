-- __index and __newindex as functions: arguments they receive, that results are
-- truncated to one value, that they are not called for present keys, and that
-- rawset/rawget inside them avoid recursion.
local log = {}
local t = setmetatable({present = "p"}, {
  __index = function(tbl, k)
    log[#log + 1] = "get " .. tostring(k)
    return k, "extra"
  end,
})
print(t.present, t.absent, t[42])
local a, b = t.x
print(a, b)
print(table.concat(log, "; "))
-- The first argument is the table being indexed (not the metatable).
local self_seen
local u = setmetatable({}, {__index = function(tbl, k) self_seen = tbl return nil end})
local _ = u.z
print(self_seen == u)
-- __newindex as a function is called for absent keys only.
local writes = {}
local w = setmetatable({exists = 1}, {
  __newindex = function(tbl, k, v)
    writes[#writes + 1] = tostring(k) .. "=" .. tostring(v)
    rawset(tbl, k, v)
  end,
})
w.exists = 2
w.new = 3
w.new = 4
w[1] = "one"
print(table.concat(writes, " "), w.exists, w.new, w[1])
-- A __newindex that refuses writes.
local ro = setmetatable({}, {__newindex = function(t, k, v) error("read-only: " .. k, 2) end})
print(pcall(function() ro.x = 1 end))
print(rawget(ro, "x"))
rawset(ro, "x", 1)
print(ro.x)
-- __newindex as a table redirects writes there.
local store = {}
local proxy = setmetatable({}, {__newindex = store, __index = store})
proxy.a = 10
print(rawget(proxy, "a"), store.a, proxy.a)
-- A chain of __newindex tables ends at a table without the metamethod.
local final = {}
local middle = setmetatable({}, {__newindex = final})
local front = setmetatable({}, {__newindex = middle})
front.k = "v"
print(rawget(front, "k"), rawget(middle, "k"), final.k)
-- Default values via __index function.
local defaults = setmetatable({}, {__index = function() return 0 end})
defaults.hits = defaults.hits + 1
defaults.hits = defaults.hits + 1
print(defaults.hits, defaults.misses)
-- Memoizing __index.
local calls = 0
local fib = setmetatable({[1] = 1, [2] = 1}, {
  __index = function(t, n)
    calls = calls + 1
    local v = t[n - 1] + t[n - 2]
    t[n] = v
    return v
  end,
})
print(fib[30], calls, fib[30], calls)
-- __index on a function key and a boolean key.
local anyk = setmetatable({}, {__index = function(t, k) return type(k) end})
print(anyk[true], anyk[print], anyk[1.5], anyk["s"])
