-- Producer/consumer with coroutines: a producer yields items, filters transform them,
-- and a consumer drives the pipeline by resuming; also a consumer-driven design where
-- the consumer is the coroutine receiving values through resume.
local function receive(prod)
  local ok, value = coroutine.resume(prod)
  return value
end
local function send(x) coroutine.yield(x) end
local function producer(items)
  return coroutine.create(function()
    for _, item in ipairs(items) do send(item) end
    send(nil)
  end)
end
local function filter(prod)
  return coroutine.create(function()
    local line = 1
    while true do
      local x = receive(prod)
      if x == nil then send(nil) break end
      send(string.format("%3d %s", line, x))
      line = line + 1
    end
  end)
end
local function consumer(prod)
  while true do
    local x = receive(prod)
    if x == nil then break end
    print(x)
  end
end
consumer(filter(producer({"alpha", "beta", "gamma", "delta"})))
-- Consumer as a coroutine: values are pushed with resume.
local total, seen = 0, 0
local sink = coroutine.create(function(first)
  local v = first
  while v ~= nil do
    total = total + v
    seen = seen + 1
    v = coroutine.yield(total)
  end
  return "closed"
end)
for _, v in ipairs({5, 10, 15, 20}) do
  local ok, running_total = coroutine.resume(sink, v)
  print("pushed", v, "total", running_total)
end
print(coroutine.resume(sink, nil))
print(coroutine.status(sink), total, seen)
-- A round-robin scheduler of three tasks.
local log = {}
local function task(name, steps)
  return coroutine.create(function()
    for i = 1, steps do log[#log + 1] = name .. i coroutine.yield() end
  end)
end
local tasks = {task("a", 3), task("b", 1), task("c", 2)}
while #tasks > 0 do
  local i = 1
  while i <= #tasks do
    coroutine.resume(tasks[i])
    if coroutine.status(tasks[i]) == "dead" then table.remove(tasks, i) else i = i + 1 end
  end
end
print(table.concat(log, " "))
