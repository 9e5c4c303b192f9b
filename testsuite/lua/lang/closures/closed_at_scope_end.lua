-- An upvalue is closed when its variable's scope ends: do-blocks, function returns,
-- and loop iterations; after closing, closures keep the last value and still share
-- it among themselves.
local get, set
do
  local v = "inside"
  get = function() return v end
  set = function(x) v = x end
end
print(get())
set("changed")
print(get())
-- A new local with the same name after the block is a different variable.
local v = "outer"
print(get(), v)
-- Closing happens on return even with pending values.
local function make(n)
  local a = n
  local f = function() a = a * 2 return a end
  return f, a
end
local f, initial = make(3)
print(initial, f(), f(), initial)
-- Closing when leaving a block through break inside a nested block.
local fns = {}
local i = 0
while true do
  i = i + 1
  do
    local inner = i
    fns[i] = function() inner = inner + 100 return inner end
    if i == 2 then break end
  end
end
print(fns[1](), fns[2](), fns[1]())
-- Shadowed locals in nested blocks.
local x = 1
local fx1 = function() return x end
do
  local x = 2
  local fx2 = function() return x end
  do
    local x = 3
    local fx3 = function() return x end
    print(fx1(), fx2(), fx3())
  end
  x = 20
  print(fx1(), fx2())
end
x = 10
print(fx1())
-- A closure made inside a returning branch of a loop.
local function find(list, target)
  for idx, val in ipairs(list) do
    if val == target then return function() return idx end end
  end
  return function() return nil end
end
print(find({"a", "b", "c"}, "b")(), find({"a"}, "z")())
-- Closures made in a function called many times.
local made = {}
local function mk(i) local c = i return function() return c end end
for k = 1, 100 do made[k] = mk(k) end
local s = 0
for k = 1, 100 do s = s + made[k]() end
print(s)
