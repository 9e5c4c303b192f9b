-- DeltaBlue: the incremental dataflow constraint solver (Maloney, Freeman-Benson), with the
-- classic chain and projection tests. Classes as metatables with single inheritance
-- (Constraint -> UnaryConstraint/BinaryConstraint -> Stay/Edit/Equality/Scale), ordered
-- collections as arrays, many small method calls and field updates.
local N = 100
local ROUNDS = 240

local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  return c
end

-- ordered collections ------------------------------------------------------------------
local function remove_all(list, elem)
  local j = 0
  for i = 1, #list do
    local e = list[i]
    if e ~= elem then
      j = j + 1
      list[j] = e
    end
  end
  for i = #list, j + 1, -1 do list[i] = nil end
end

-- a FIFO with a read index, so removing the first element is O(1)
local Queue = class(nil)
local function queue() return setmetatable({ items = {}, head = 1, tail = 0 }, Queue) end
function Queue:push(x) self.tail = self.tail + 1; self.items[self.tail] = x end
function Queue:empty() return self.head > self.tail end
function Queue:pop()
  local x = self.items[self.head]
  self.items[self.head] = nil
  self.head = self.head + 1
  return x
end

-- strengths ------------------------------------------------------------------------------
local Strength = class(nil)
local function strength(value, name) return setmetatable({ value = value, name = name }, Strength) end
local REQUIRED = strength(0, "required")
local STRONG_PREFERRED = strength(1, "strongPreferred")
local PREFERRED = strength(2, "preferred")
local STRONG_DEFAULT = strength(3, "strongDefault")
local NORMAL = strength(4, "normal")
local WEAK_DEFAULT = strength(5, "weakDefault")
local WEAKEST = strength(6, "weakest")
local by_value = { [0] = REQUIRED, STRONG_PREFERRED, PREFERRED, STRONG_DEFAULT, NORMAL, WEAK_DEFAULT, WEAKEST }

local function stronger(s1, s2) return s1.value < s2.value end
local function weaker(s1, s2) return s1.value > s2.value end
local function weakest_of(s1, s2) if weaker(s1, s2) then return s1 end return s2 end
function Strength:next_weaker() return by_value[self.value + 1] end

local NONE, FORWARD, BACKWARD = 0, 1, 2

local planner -- the current planner; constraints add themselves to it

-- variables ------------------------------------------------------------------------------
local Variable = class(nil)
local function variable(name, value)
  return setmetatable({
    name = name, value = value, constraints = {}, determined_by = nil,
    mark = 0, walk_strength = WEAKEST, stay = true,
  }, Variable)
end
function Variable:add_constraint(c) self.constraints[#self.constraints + 1] = c end
function Variable:remove_constraint(c)
  remove_all(self.constraints, c)
  if self.determined_by == c then self.determined_by = nil end
end

-- constraints ----------------------------------------------------------------------------
local Constraint = class(nil)
function Constraint:add_constraint()
  self:add_to_graph()
  planner:incremental_add(self)
end
function Constraint:satisfy(mark)
  self:choose_method(mark)
  if not self:is_satisfied() then
    if self.strength == REQUIRED then error("Could not satisfy a required constraint") end
    return nil
  end
  self:mark_inputs(mark)
  local out = self:output()
  local overridden = out.determined_by
  if overridden ~= nil then overridden:mark_unsatisfied() end
  out.determined_by = self
  if not planner:add_propagate(self, mark) then error("Cycle encountered") end
  out.mark = mark
  return overridden
end
function Constraint:destroy_constraint()
  if self:is_satisfied() then planner:incremental_remove(self) else self:remove_from_graph() end
end
function Constraint:is_input() return false end

local UnaryConstraint = class(Constraint)
function UnaryConstraint.init(self, v, str)
  self.strength = str
  self.my_output = v
  self.satisfied = false
  self:add_constraint()
  return self
end
function UnaryConstraint:add_to_graph()
  self.my_output:add_constraint(self)
  self.satisfied = false
end
function UnaryConstraint:choose_method(mark)
  self.satisfied = self.my_output.mark ~= mark and stronger(self.strength, self.my_output.walk_strength)
end
function UnaryConstraint:is_satisfied() return self.satisfied end
function UnaryConstraint:mark_inputs(_) end
function UnaryConstraint:output() return self.my_output end
function UnaryConstraint:recalculate()
  local out = self.my_output
  out.walk_strength = self.strength
  out.stay = not self:is_input()
  if out.stay then self:execute() end
end
function UnaryConstraint:mark_unsatisfied() self.satisfied = false end
function UnaryConstraint:inputs_known(_) return true end
function UnaryConstraint:remove_from_graph()
  if self.my_output ~= nil then self.my_output:remove_constraint(self) end
  self.satisfied = false
end

local StayConstraint = class(UnaryConstraint)
function StayConstraint:execute() end
local function stay_constraint(v, str) return UnaryConstraint.init(setmetatable({}, StayConstraint), v, str) end

local EditConstraint = class(UnaryConstraint)
function EditConstraint:is_input() return true end
function EditConstraint:execute() end
local function edit_constraint(v, str) return UnaryConstraint.init(setmetatable({}, EditConstraint), v, str) end

local BinaryConstraint = class(Constraint)
function BinaryConstraint.init(self, v1, v2, str)
  self.strength = str
  self.v1, self.v2 = v1, v2
  self.direction = NONE
  self:add_constraint()
  return self
end
function BinaryConstraint:choose_method(mark)
  local v1, v2, str = self.v1, self.v2, self.strength
  if v1.mark == mark then
    if v2.mark ~= mark and stronger(str, v2.walk_strength) then self.direction = FORWARD else self.direction = NONE end
    return
  end
  if v2.mark == mark then
    if v1.mark ~= mark and stronger(str, v1.walk_strength) then self.direction = BACKWARD else self.direction = NONE end
    return
  end
  if weaker(v1.walk_strength, v2.walk_strength) then
    if stronger(str, v1.walk_strength) then self.direction = BACKWARD else self.direction = NONE end
  else
    if stronger(str, v2.walk_strength) then self.direction = FORWARD else self.direction = NONE end
  end
end
function BinaryConstraint:add_to_graph()
  self.v1:add_constraint(self)
  self.v2:add_constraint(self)
  self.direction = NONE
end
function BinaryConstraint:is_satisfied() return self.direction ~= NONE end
function BinaryConstraint:mark_inputs(mark) self:input().mark = mark end
function BinaryConstraint:input() if self.direction == FORWARD then return self.v1 end return self.v2 end
function BinaryConstraint:output() if self.direction == FORWARD then return self.v2 end return self.v1 end
function BinaryConstraint:recalculate()
  local ihn, out = self:input(), self:output()
  out.walk_strength = weakest_of(self.strength, ihn.walk_strength)
  out.stay = ihn.stay
  if out.stay then self:execute() end
end
function BinaryConstraint:mark_unsatisfied() self.direction = NONE end
function BinaryConstraint:inputs_known(mark)
  local i = self:input()
  return i.mark == mark or i.stay or i.determined_by == nil
end
function BinaryConstraint:remove_from_graph()
  if self.v1 ~= nil then self.v1:remove_constraint(self) end
  if self.v2 ~= nil then self.v2:remove_constraint(self) end
  self.direction = NONE
end

local EqualityConstraint = class(BinaryConstraint)
function EqualityConstraint:execute() self:output().value = self:input().value end
local function equality_constraint(a, b, str) return BinaryConstraint.init(setmetatable({}, EqualityConstraint), a, b, str) end

local ScaleConstraint = class(BinaryConstraint)
local function scale_constraint(src, scale, offset, dest, str)
  local self = setmetatable({ scale = scale, offset = offset }, ScaleConstraint)
  return BinaryConstraint.init(self, src, dest, str)
end
function ScaleConstraint:add_to_graph()
  BinaryConstraint.add_to_graph(self)
  self.scale:add_constraint(self)
  self.offset:add_constraint(self)
end
function ScaleConstraint:remove_from_graph()
  BinaryConstraint.remove_from_graph(self)
  if self.scale ~= nil then self.scale:remove_constraint(self) end
  if self.offset ~= nil then self.offset:remove_constraint(self) end
end
function ScaleConstraint:mark_inputs(mark)
  BinaryConstraint.mark_inputs(self, mark)
  self.scale.mark = mark
  self.offset.mark = mark
end
function ScaleConstraint:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value * self.scale.value + self.offset.value
  else
    self.v1.value = (self.v2.value - self.offset.value) / self.scale.value
  end
end
function ScaleConstraint:recalculate()
  local ihn, out = self:input(), self:output()
  out.walk_strength = weakest_of(self.strength, ihn.walk_strength)
  out.stay = ihn.stay and self.scale.stay and self.offset.stay
  if out.stay then self:execute() end
end

-- plans ----------------------------------------------------------------------------------
local Plan = class(nil)
local function plan() return setmetatable({ list = {} }, Plan) end
function Plan:add_constraint(c) self.list[#self.list + 1] = c end
function Plan:size() return #self.list end
function Plan:execute()
  local list = self.list
  for i = 1, #list do list[i]:execute() end
end

-- the planner ----------------------------------------------------------------------------
local Planner = class(nil)
local function new_planner() return setmetatable({ current_mark = 0 }, Planner) end
function Planner:new_mark()
  self.current_mark = self.current_mark + 1
  return self.current_mark
end
function Planner:incremental_add(c)
  local mark = self:new_mark()
  local overridden = c:satisfy(mark)
  while overridden ~= nil do overridden = overridden:satisfy(mark) end
end
function Planner:incremental_remove(c)
  local out = c:output()
  c:mark_unsatisfied()
  c:remove_from_graph()
  local unsatisfied = self:remove_propagate_from(out)
  local str = REQUIRED
  repeat
    for i = 1, #unsatisfied do
      local u = unsatisfied[i]
      if u.strength == str then self:incremental_add(u) end
    end
    str = str:next_weaker()
  until str == WEAKEST
end
function Planner:add_constraints_consuming_to(v, coll)
  local determining = v.determined_by
  local cs = v.constraints
  for i = 1, #cs do
    local c = cs[i]
    if c ~= determining and c:is_satisfied() then coll:push(c) end
  end
end
function Planner:make_plan(sources)
  local mark = self:new_mark()
  local p = plan()
  local todo = sources
  while not todo:empty() do
    local c = todo:pop()
    if c:output().mark ~= mark and c:inputs_known(mark) then
      p:add_constraint(c)
      c:output().mark = mark
      self:add_constraints_consuming_to(c:output(), todo)
    end
  end
  return p
end
function Planner:extract_plan_from_constraints(constraints)
  local sources = queue()
  for i = 1, #constraints do
    local c = constraints[i]
    if c:is_input() and c:is_satisfied() then sources:push(c) end
  end
  return self:make_plan(sources)
end
function Planner:add_propagate(c, mark)
  local todo = queue()
  todo:push(c)
  while not todo:empty() do
    local d = todo:pop()
    if d:output().mark == mark then
      self:incremental_remove(c)
      return false
    end
    d:recalculate()
    self:add_constraints_consuming_to(d:output(), todo)
  end
  return true
end
function Planner:remove_propagate_from(out)
  out.determined_by = nil
  out.walk_strength = WEAKEST
  out.stay = true
  local unsatisfied = {}
  local todo = queue()
  todo:push(out)
  while not todo:empty() do
    local v = todo:pop()
    local cs = v.constraints
    for i = 1, #cs do
      local c = cs[i]
      if not c:is_satisfied() then unsatisfied[#unsatisfied + 1] = c end
    end
    local determining = v.determined_by
    for i = 1, #cs do
      local nxt = cs[i]
      if nxt ~= determining and nxt:is_satisfied() then
        nxt:recalculate()
        todo:push(nxt:output())
      end
    end
  end
  return unsatisfied
end

-- the tests ------------------------------------------------------------------------------
local checksum = 0
local function note(x) checksum = (checksum * 31 + x) % 1000000007 end

local function chain_test(n)
  planner = new_planner()
  local prev, first, last
  for i = 0, n do
    local v = variable("v" .. i, 0)
    if prev ~= nil then equality_constraint(prev, v, REQUIRED) end
    if i == 0 then first = v end
    if i == n then last = v end
    prev = v
  end
  stay_constraint(last, STRONG_DEFAULT)
  local edit = edit_constraint(first, PREFERRED)
  local p = planner:extract_plan_from_constraints({ edit })
  for i = 0, 99 do
    first.value = i
    p:execute()
    if last.value ~= i then error("Chain test failed: " .. tostring(last.value) .. " ~= " .. i) end
  end
  note(p:size())
  note(planner.current_mark)
end

local function change(v, new_value)
  local edit = edit_constraint(v, PREFERRED)
  local p = planner:extract_plan_from_constraints({ edit })
  for _ = 1, 10 do
    v.value = new_value
    p:execute()
  end
  edit:destroy_constraint()
  note(p:size())
end

local function projection_test(n)
  planner = new_planner()
  local scale = variable("scale", 10)
  local offset = variable("offset", 1000)
  local src, dst
  local dests = {}
  for i = 0, n - 1 do
    src = variable("src" .. i, i)
    dst = variable("dst" .. i, i)
    dests[#dests + 1] = dst
    stay_constraint(src, NORMAL)
    scale_constraint(src, scale, offset, dst, REQUIRED)
  end
  change(src, 17)
  if dst.value ~= 1170 then error("Projection 1 failed") end
  change(dst, 1050)
  if src.value ~= 5 then error("Projection 2 failed") end
  change(scale, 5)
  for i = 0, n - 2 do
    if dests[i + 1].value ~= i * 5 + 1000 then error("Projection 3 failed") end
  end
  change(offset, 2000)
  for i = 0, n - 2 do
    if dests[i + 1].value ~= i * 5 + 2000 then error("Projection 4 failed") end
  end
  local sum = 0
  for i = 1, #dests do sum = sum + dests[i].value end
  note(sum % 1000003)
  note(planner.current_mark)
end

for _ = 1, ROUNDS do
  chain_test(N)
  projection_test(N)
end
print("chain and projection tests passed", ROUNDS, "rounds of size", N)
print("checksum", checksum)
planner = new_planner()
chain_test(10)
print("marks used by a chain of 10", planner.current_mark)
