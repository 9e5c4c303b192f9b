-- A call hook set after the calls ran many times (their sites cached the callees; in JIT code
-- the sites' stubs jump to the callees' entries directly) sees every call from then on, and
-- none after it is removed: set before a call and while a loop runs. The same for tail calls
-- and closures of one prototype.
local function leaf(x) return x + 1 end
local function tail(x) return leaf(x) end
local function make(k) return function(x) return x * k end end
local function run(n)
  local s = 0
  for i = 1, n do
    s = s + leaf(i) + tail(i) + make(i)(i)
  end
  return s
end
print(run(500))                        -- warm: every site cached, compiled functions called

local calls = {}
local function hook(event)
  local info = debug.getinfo(2, "S")
  local key = event .. " " .. info.what .. " " .. tostring(info.linedefined)
  calls[key] = (calls[key] or 0) + 1
end
debug.sethook(hook, "c")
print(run(10))
debug.sethook()
local keys = {}
for k in pairs(calls) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do print(k, calls[k]) end

-- Set while a loop runs (in JIT code, its frame stays there): the calls after it are seen.
local function run2(n, at)
  local s = 0
  for i = 1, n do
    if i == at then debug.sethook(hook, "c") end
    s = s + leaf(i) + tail(i) + make(i)(i)
  end
  debug.sethook()
  return s
end
print(run2(500, 0))
calls = {}
print(run2(20, 11))
keys = {}
for k in pairs(calls) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do print(k, calls[k]) end

-- Removed: the sites go on calling directly, and nothing is counted.
calls = {}
print(run(500))
print(next(calls))
