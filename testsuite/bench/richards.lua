-- Richards: an operating-system task scheduler simulation (idle, worker, two handlers, two
-- devices) passing packets between task control blocks. Objects with methods, linked lists,
-- and many small calls; prints the queue and hold counts, which the algorithm fixes.
local COUNT = 10000
local ITERATIONS = 25

local ID_IDLE, ID_WORKER, ID_HANDLER_A, ID_HANDLER_B, ID_DEVICE_A, ID_DEVICE_B = 1, 2, 3, 4, 5, 6
local KIND_DEVICE, KIND_WORK = 0, 1
local DATA_SIZE = 4

local STATE_RUNNING, STATE_RUNNABLE, STATE_SUSPENDED, STATE_HELD = 0, 1, 2, 4
local STATE_SUSPENDED_RUNNABLE = STATE_SUSPENDED + STATE_RUNNABLE

local Packet = {}
Packet.__index = Packet
local function packet(link, id, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({ link = link, id = id, kind = kind, a1 = 0, a2 = data }, Packet)
end
function Packet:add_to(queue)
  self.link = nil
  if queue == nil then return self end
  local next = queue
  while next.link ~= nil do next = next.link end
  next.link = self
  return queue
end

local Tcb = {}
Tcb.__index = Tcb
local function tcb(link, id, priority, queue, task)
  local state = queue == nil and STATE_SUSPENDED or STATE_SUSPENDED_RUNNABLE
  return setmetatable({ link = link, id = id, priority = priority, queue = queue, task = task, state = state }, Tcb)
end
function Tcb:set_running() self.state = STATE_RUNNING end
function Tcb:mark_as_not_held() self.state = self.state % 4 end
function Tcb:mark_as_held() if self.state < STATE_HELD then self.state = self.state + STATE_HELD end end
function Tcb:is_held_or_suspended()
  return self.state >= STATE_HELD or self.state == STATE_SUSPENDED
end
function Tcb:mark_as_suspended() if self.state % 4 < 2 then self.state = self.state + STATE_SUSPENDED end end
function Tcb:mark_as_runnable() if self.state % 2 == 0 then self.state = self.state + STATE_RUNNABLE end end
function Tcb:run()
  local packet
  if self.state == STATE_SUSPENDED_RUNNABLE then
    packet = self.queue
    self.queue = packet.link
    if self.queue == nil then self.state = STATE_RUNNING else self.state = STATE_RUNNABLE end
  end
  return self.task:run(packet)
end
function Tcb:check_priority_add(task, packet)
  if self.queue == nil then
    self.queue = packet
    self:mark_as_runnable()
    if self.priority > task.priority then return self end
  else
    self.queue = packet:add_to(self.queue)
  end
  return task
end

local Scheduler = {}
Scheduler.__index = Scheduler
local function scheduler()
  return setmetatable({ queue_count = 0, hold_count = 0, blocks = {}, list = nil, current = nil, current_id = nil }, Scheduler)
end
function Scheduler:add_task(id, priority, queue, task)
  self.current = tcb(self.list, id, priority, queue, task)
  self.list = self.current
  self.blocks[id] = self.current
end
function Scheduler:add_running_task(id, priority, queue, task)
  self:add_task(id, priority, queue, task)
  self.current:set_running()
end
function Scheduler:schedule()
  self.current = self.list
  while self.current ~= nil do
    if self.current:is_held_or_suspended() then
      self.current = self.current.link
    else
      self.current_id = self.current.id
      self.current = self.current:run()
    end
  end
end
function Scheduler:release(id)
  local t = self.blocks[id]
  if t == nil then return t end
  t:mark_as_not_held()
  if t.priority > self.current.priority then return t end
  return self.current
end
function Scheduler:hold_current()
  self.hold_count = self.hold_count + 1
  self.current:mark_as_held()
  return self.current.link
end
function Scheduler:suspend_current()
  self.current:mark_as_suspended()
  return self.current
end
function Scheduler:queue(packet)
  local t = self.blocks[packet.id]
  if t == nil then return t end
  self.queue_count = self.queue_count + 1
  packet.link = nil
  packet.id = self.current_id
  return t:check_priority_add(self.current, packet)
end

local IdleTask = {}
IdleTask.__index = IdleTask
function IdleTask:run()
  self.count = self.count - 1
  if self.count == 0 then return self.scheduler:hold_current() end
  if self.v1 % 2 == 0 then
    self.v1 = self.v1 / 2
    return self.scheduler:release(ID_DEVICE_A)
  end
  self.v1 = (self.v1 - 1) / 2
  -- xor with 0xD008 on the bits the seed can have
  local v, m, r, bit = self.v1, 0xD008, 0, 1
  while v > 0 or m > 0 do
    if (v % 2) ~= (m % 2) then r = r + bit end
    v, m, bit = math.floor(v / 2), math.floor(m / 2), bit * 2
  end
  self.v1 = r
  return self.scheduler:release(ID_DEVICE_B)
end

local DeviceTask = {}
DeviceTask.__index = DeviceTask
function DeviceTask:run(packet)
  if packet == nil then
    if self.v1 == nil then return self.scheduler:suspend_current() end
    local v = self.v1
    self.v1 = nil
    return self.scheduler:queue(v)
  end
  self.v1 = packet
  return self.scheduler:hold_current()
end

local WorkerTask = {}
WorkerTask.__index = WorkerTask
function WorkerTask:run(packet)
  if packet == nil then return self.scheduler:suspend_current() end
  if self.v1 == ID_HANDLER_A then self.v1 = ID_HANDLER_B else self.v1 = ID_HANDLER_A end
  packet.id = self.v1
  packet.a1 = 0
  for i = 1, DATA_SIZE do
    self.v2 = self.v2 + 1
    if self.v2 > 26 then self.v2 = 1 end
    packet.a2[i] = self.v2
  end
  return self.scheduler:queue(packet)
end

local HandlerTask = {}
HandlerTask.__index = HandlerTask
function HandlerTask:run(packet)
  if packet ~= nil then
    if packet.kind == KIND_WORK then self.v1 = packet:add_to(self.v1) else self.v2 = packet:add_to(self.v2) end
  end
  if self.v1 ~= nil then
    local count = self.v1.a1
    if count < DATA_SIZE then
      if self.v2 ~= nil then
        local v = self.v2
        self.v2 = self.v2.link
        v.a1 = self.v1.a2[count + 1]
        self.v1.a1 = count + 1
        return self.scheduler:queue(v)
      end
    else
      local v = self.v1
      self.v1 = self.v1.link
      return self.scheduler:queue(v)
    end
  end
  return self.scheduler:suspend_current()
end

local function task(class, s, fields)
  fields.scheduler = s
  return setmetatable(fields, class)
end

local function run_once()
  local s = scheduler()
  s:add_running_task(ID_IDLE, 0, nil, task(IdleTask, s, { v1 = 1, count = COUNT }))
  local queue = packet(nil, ID_WORKER, KIND_WORK)
  queue = packet(queue, ID_WORKER, KIND_WORK)
  s:add_task(ID_WORKER, 1000, queue, task(WorkerTask, s, { v1 = ID_HANDLER_A, v2 = 0 }))
  queue = packet(nil, ID_DEVICE_A, KIND_DEVICE)
  queue = packet(queue, ID_DEVICE_A, KIND_DEVICE)
  queue = packet(queue, ID_DEVICE_A, KIND_DEVICE)
  s:add_task(ID_HANDLER_A, 2000, queue, task(HandlerTask, s, {}))
  queue = packet(nil, ID_DEVICE_B, KIND_DEVICE)
  queue = packet(queue, ID_DEVICE_B, KIND_DEVICE)
  queue = packet(queue, ID_DEVICE_B, KIND_DEVICE)
  s:add_task(ID_HANDLER_B, 3000, queue, task(HandlerTask, s, {}))
  s:add_task(ID_DEVICE_A, 4000, nil, task(DeviceTask, s, {}))
  s:add_task(ID_DEVICE_B, 5000, nil, task(DeviceTask, s, {}))
  s:schedule()
  return s.queue_count, s.hold_count
end

local q, h
for _ = 1, ITERATIONS do q, h = run_once() end
print("queue count", q, "hold count", h)
