-- Havlak loop recognition (after Hundt's LoopTesterApp): build a large control-flow graph of
-- nested loops and diamonds, then find its loop-nesting forest with DFS numbering and a
-- union-find; objects as tables with metatables, arrays, membership tables, deep recursion.
local DUMMY_LOOPS = 2
local FIND_ITERATIONS = 30
local PAR_LOOPS, PPAR_LOOPS, PPPAR_LOOPS = 10, 10, 5

local function class()
  local c = {}
  c.__index = c
  return c
end

-- an insertion-ordered set: iteration order never depends on table addresses
local Set = class()
local function new_set() return setmetatable({ items = {}, has = {} }, Set) end
function Set:add(x)
  if not self.has[x] then
    self.has[x] = true
    self.items[#self.items + 1] = x
  end
end
function Set:size() return #self.items end

-- the control-flow graph -----------------------------------------------------------------
local BasicBlock = class()
local function basic_block(name)
  return setmetatable({ name = name, in_edges = {}, out_edges = {} }, BasicBlock)
end

local Cfg = class()
local function new_cfg() return setmetatable({ blocks = {}, count = 0, start = nil, edges = {} }, Cfg) end
function Cfg:create_node(name)
  local node = self.blocks[name]
  if node == nil then
    node = basic_block(name)
    self.blocks[name] = node
    self.count = self.count + 1
  end
  if self.count == 1 then self.start = node end
  return node
end
function Cfg:add_edge(from_name, to_name)
  local from, to = self:create_node(from_name), self:create_node(to_name)
  from.out_edges[#from.out_edges + 1] = to
  to.in_edges[#to.in_edges + 1] = from
  self.edges[#self.edges + 1] = { from, to }
end

-- loops and the loop-structure graph -------------------------------------------------------
local SimpleLoop = class()
local function simple_loop(header, reducible)
  local loop = setmetatable({
    blocks = new_set(), children = new_set(), parent = nil, header = header,
    is_root = false, is_reducible = reducible, counter = 0, nesting_level = 0, depth_level = 0,
  }, SimpleLoop)
  if header ~= nil then loop.blocks:add(header) end
  return loop
end
function SimpleLoop:add_node(bb) self.blocks:add(bb) end
function SimpleLoop:add_child(loop) self.children:add(loop) end
function SimpleLoop:set_parent(parent)
  self.parent = parent
  parent:add_child(self)
end
function SimpleLoop:set_nesting_level(level)
  self.nesting_level = level
  if level == 0 then self.is_root = true end
end

local Lsg = class()
local function new_lsg()
  local lsg = setmetatable({ loops = {}, counter = 0 }, Lsg)
  lsg.root = lsg:create_loop(nil, true)
  lsg.root:set_nesting_level(0)
  return lsg
end
function Lsg:create_loop(header, reducible)
  local loop = simple_loop(header, reducible)
  loop.counter = self.counter
  self.counter = self.counter + 1
  self.loops[#self.loops + 1] = loop
  return loop
end
function Lsg:num_loops() return #self.loops end
local function nesting_rec(loop, depth)
  loop.depth_level = depth
  local kids = loop.children.items
  for i = 1, #kids do
    local child = kids[i]
    nesting_rec(child, depth + 1)
    if child.nesting_level + 1 > loop.nesting_level then loop:set_nesting_level(child.nesting_level + 1) end
  end
end
function Lsg:calculate_nesting_level()
  for i = 1, #self.loops do
    local loop = self.loops[i]
    if not loop.is_root and loop.parent == nil then loop:set_parent(self.root) end
  end
  nesting_rec(self.root, 0)
end

-- union-find ------------------------------------------------------------------------------
local UnionFindNode = class()
local function union_find_node() return setmetatable({ parent = nil, bb = nil, loop = nil, dfs = 0 }, UnionFindNode) end
function UnionFindNode:init(bb, dfs)
  self.parent = self
  self.bb = bb
  self.dfs = dfs
  self.loop = nil
end
function UnionFindNode:find_set()
  local path = {}
  local node = self
  while node ~= node.parent do
    if node.parent ~= node.parent.parent then path[#path + 1] = node end
    node = node.parent
  end
  for i = 1, #path do path[i].parent = node.parent end
  return node
end
function UnionFindNode:union(other) self.parent = other end

-- Havlak's algorithm -----------------------------------------------------------------------
local UNVISITED = 2147483647
local MAX_NON_BACK_PREDS = 32 * 1024
local BB_NONHEADER, BB_REDUCIBLE, BB_SELF, BB_IRREDUCIBLE, BB_DEAD = 1, 2, 3, 4, 5

local function is_ancestor(w, v, last) return w <= v and v <= last[w] end

local function dfs(node, nodes, number, last, current)
  nodes[current]:init(node, current)
  number[node] = current
  local lastid = current
  local outs = node.out_edges
  for i = 1, #outs do
    local target = outs[i]
    if number[target] == UNVISITED then lastid = dfs(target, nodes, number, last, lastid + 1) end
  end
  last[number[node]] = lastid
  return lastid
end

local function find_loops(cfg, lsg)
  if cfg.start == nil then return end
  local size = cfg.count
  local non_back_preds, back_preds, number = {}, {}, {}
  local header, types, last, nodes = {}, {}, {}, {}
  for w = 0, size - 1 do
    non_back_preds[w] = new_set()
    back_preds[w] = {}
    nodes[w] = union_find_node()
  end
  for _, bb in pairs(cfg.blocks) do number[bb] = UNVISITED end
  dfs(cfg.start, nodes, number, last, 0)

  for w = 0, size - 1 do
    header[w] = 0
    types[w] = BB_NONHEADER
    local node_w = nodes[w].bb
    if node_w == nil then
      types[w] = BB_DEAD
    else
      local ins = node_w.in_edges
      for i = 1, #ins do
        local v = number[ins[i]]
        if v ~= UNVISITED then
          if is_ancestor(w, v, last) then
            back_preds[w][#back_preds[w] + 1] = v
          else
            non_back_preds[w]:add(v)
          end
        end
      end
    end
  end
  header[0] = 0

  for w = size - 1, 0, -1 do
    local node_w = nodes[w].bb
    if node_w ~= nil then
      local pool = new_set()
      local bps = back_preds[w]
      for i = 1, #bps do
        local v = bps[i]
        if v ~= w then pool:add(nodes[v]:find_set()) else types[w] = BB_SELF end
      end
      local work, head = {}, 1
      for i = 1, #pool.items do work[i] = pool.items[i] end
      if pool:size() ~= 0 then types[w] = BB_REDUCIBLE end
      while head <= #work do
        local x = work[head]
        head = head + 1
        local preds = non_back_preds[x.dfs]
        if preds:size() > MAX_NON_BACK_PREDS then return end
        local items = preds.items
        for i = 1, #items do
          local ydash = nodes[items[i]]:find_set()
          if not is_ancestor(w, ydash.dfs, last) then
            types[w] = BB_IRREDUCIBLE
            non_back_preds[w]:add(ydash.dfs)
          elseif ydash.dfs ~= w and not pool.has[ydash] then
            work[#work + 1] = ydash
            pool:add(ydash)
          end
        end
      end
      if pool:size() > 0 or types[w] == BB_SELF then
        local loop = lsg:create_loop(node_w, types[w] ~= BB_IRREDUCIBLE)
        nodes[w].loop = loop
        local members = pool.items
        for i = 1, #members do
          local node = members[i]
          header[node.dfs] = w
          node:union(nodes[w])
          if node.loop ~= nil then node.loop:set_parent(loop) else loop:add_node(node.bb) end
        end
      end
    end
  end
  return size
end

-- the graph generator ------------------------------------------------------------------------
local cfg = new_cfg()
local function build_diamond(start)
  cfg:add_edge(start, start + 1)
  cfg:add_edge(start, start + 2)
  cfg:add_edge(start + 1, start + 3)
  cfg:add_edge(start + 2, start + 3)
  return start + 3
end
local function build_connect(from, to) cfg:add_edge(from, to) end
local function build_straight(start, n)
  for i = 0, n - 1 do build_connect(start + i, start + i + 1) end
  return start + n
end
local function build_base_loop(from)
  local header = build_straight(from, 1)
  local diamond1 = build_diamond(header)
  local d11 = build_straight(diamond1, 1)
  local diamond2 = build_diamond(d11)
  local footer = build_straight(diamond2, 1)
  build_connect(diamond2, d11)
  build_connect(diamond1, header)
  build_connect(footer, from)
  return build_straight(footer, 1)
end

cfg:create_node(0)
build_base_loop(0)
cfg:create_node(1)
build_connect(0, 2)

for _ = 1, DUMMY_LOOPS do find_loops(cfg, new_lsg()) end

local n = 2
for _ = 1, PAR_LOOPS do
  cfg:create_node(n + 1)
  build_connect(2, n + 1)
  n = n + 1
  for _ = 1, PPAR_LOOPS do
    local top = n
    n = build_straight(n, 1)
    for _ = 1, PPPAR_LOOPS do n = build_base_loop(n) end
    local bottom = build_straight(n, 1)
    build_connect(n, top)
    n = bottom
  end
  build_connect(n, 1)
end
print("nodes", cfg.count, "edges", #cfg.edges)

local lsg = new_lsg()
find_loops(cfg, lsg)
local loops_found = 0
for _ = 1, FIND_ITERATIONS do
  local l = new_lsg()
  find_loops(cfg, l)
  loops_found = loops_found + l:num_loops()
end
print("loops found in " .. FIND_ITERATIONS .. " more passes", loops_found)
lsg:calculate_nesting_level()
print("loops", lsg:num_loops())

local by_depth, max_nesting, reducible, blocks = {}, 0, 0, 0
for i = 1, #lsg.loops do
  local loop = lsg.loops[i]
  by_depth[loop.depth_level] = (by_depth[loop.depth_level] or 0) + 1
  if loop.nesting_level > max_nesting then max_nesting = loop.nesting_level end
  if loop.is_reducible then reducible = reducible + 1 end
  blocks = blocks + loop.blocks:size()
end
print("reducible", reducible, "max nesting", max_nesting, "blocks in loops", blocks)
for d = 0, #by_depth do print("depth " .. d, by_depth[d]) end
