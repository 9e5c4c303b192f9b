-- Call sites cache their last callee by address. A collected function's cell is the next one
-- handed out, so a new function of another prototype lands where the cached one was: the
-- call must still run the new function's code.
local function make(i)
  if i % 2 == 0 then return function() return "even" end end
  return function() return "odd" end
end
local function call(g) return g() end
for i = 1, 200 do
  local f = make(i)
  assert(call(f) == (i % 2 == 0 and "even" or "odd"))
  f = nil
  collectgarbage()
  local g = make(i + 1)
  local r = call(g)
  assert(r == ((i + 1) % 2 == 0 and "even" or "odd"), "stale call cache in round " .. i)
end
print("reused cells called correctly")

-- One call site seeing many callees in turn (the cache is refilled on each miss), native and
-- Lua functions, and values called through __call.
local callable = setmetatable({}, { __call = function(self, x) return "called with " .. tostring(x) end })
local callees = { tostring, function(x) return x * 2 end, callable, math.floor, function(...) return select("#", ...) end }
for round = 1, 3 do
  for _, c in ipairs(callees) do
    print(round, c(2.5))
  end
end

-- The cached callee becoming a non-function.
local h = function() return "function" end
for i = 1, 4 do
  print(pcall(function() return h() end))
  if i == 2 then h = 42 end
end

-- Tail calls and generic-for iterators go through caches too.
local function count(n, acc) if n == 0 then return acc end return count(n - 1, acc + 1) end
print(count(10000, 0))
local function iter(s, i) if i < s then return i + 1 end end
local total = 0
for i in iter, 5, 0 do total = total + i end
print(total)
