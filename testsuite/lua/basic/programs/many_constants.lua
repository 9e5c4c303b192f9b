-- A function with more constants than 16-bit operands reach (5.1 allows 2^18 - 1): the
-- constants past them are loaded into slots, and globals, fields, methods and nested
-- functions named by them still work, metamethods and error names included.
-- The source is read piece by piece, so building it keeps little alive.
local function source(n, head, item, tail)
  local i = -1
  return function()
    i = i + 1
    if i == 0 then return head elseif i <= n then return item(i) elseif i == n + 1 then return tail end
  end
end
-- Past the limit: 5.1's message, without a position. (First, while little is alive: the
-- gc-stress mode collects once per piece read.)
print(pcall(load, source(262144, "return {", function(i) return "'k" .. i .. "'," end, "}")))
local big = source(70000, "local t = {", function(i) return "k" .. i .. " = " .. i .. "," end, [[}
local s = 0
for i = 1, 3 do s = s + i end
obj = {n = 0.5}
function obj:bump(d) self.n = self.n + d; return self end
obj.sub = {}
function obj.sub.f(x) return x * 2.5 end
local g = function(y) return y + 0.25 end
newglobal = 123.5
local r = {t.k1, t.k70000, t.k35000, s, obj:bump(7.5).n, obj.sub.f(2), g(1), newglobal}
r[#r + 1] = (s == 6) and "six" or "other"
r[#r + 1] = tostring(nil) .. tostring(true ~= false)
local ok, msg = pcall(function() return undefinedfn(1) end)
r[#r + 1] = msg
ok, msg = pcall(function() return obj:nomethod() end)
r[#r + 1] = msg
return r
]])
local f = assert(load(big, "=big"))
-- Globals of the big function go through its environment's metamethods.
local log = {}
local env = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k; return _G[k] end,
  __newindex = function(e, k, v) log[#log + 1] = "set " .. k; rawset(e, k, v) end,
})
setfenv(f, env)
for _, v in ipairs(f()) do print(v) end
print(table.concat(log, " "))
