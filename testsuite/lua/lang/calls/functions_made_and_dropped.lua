-- Functions made, called and dropped while others live on: under the baseline JIT the
-- collector gives a dead function's code back and the next compilations reuse it. Call sites
-- in long-lived functions keep seeing new callees, some at the places (objects, code) dead ones
-- had; functions kept alive, and a coroutine suspended in one, must still run their own code.

local function apply(f, x) return f(x) end          -- one site, many short-lived callees
local function apply_tail(f, x) return f(x) end     -- the same as a tail call

local kept = {}
local total = 0
for round = 1, 120 do
  local k = round % 7
  local src = "local k = ... return function(x) local t = {} for i = 1, 3 do t[i] = x * i + k end " ..
      "if x % 2 == 0 then return t[1] + t[2] + t[3] else return t[3] - t[1] end end"
  local f = loadstring(src)(k)
  total = total + apply(f, round) + apply_tail(f, round + 1)
  -- A closure made here, called through the long-lived sites as well.
  local g = function(x) return x * k + f(x) end
  total = total + apply(g, round)
  if round % 20 == 0 then kept[#kept + 1] = { f = f, g = g, round = round } end
  if round % 6 == 0 then collectgarbage() end
end
print("total", total)

-- The kept functions still compute what they did.
for _, e in ipairs(kept) do
  print(e.round, e.f(e.round), e.g(e.round), apply(e.f, 3), apply_tail(e.g, 4))
end

-- A coroutine suspended inside a function nothing else refers to.
local co = coroutine.create(loadstring("return function(n) local s = 0 " ..
  "for i = 1, n do s = s + i coroutine.yield(s) end return -s end")())
print(coroutine.resume(co, 4))
for round = 1, 30 do
  local h = loadstring("return function(x) return x - " .. round .. " end")()
  total = total + apply(h, round * 2)
  if round % 5 == 0 then collectgarbage() end
end
print(coroutine.resume(co))
print(coroutine.resume(co))
print(coroutine.resume(co))
print(coroutine.resume(co))
print(coroutine.status(co), total)

-- Errors thrown from short-lived functions through the long-lived sites.
for round = 1, 20 do
  local bad = loadstring("return function(x) if x > " .. (round % 4) .. " then error('over ' .. x) end return x end")()
  print(pcall(apply, bad, round % 6))
  if round % 4 == 0 then collectgarbage() end
end
