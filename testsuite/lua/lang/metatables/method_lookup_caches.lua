-- `obj:name()` goes through three caches: the receiver's (which remembers that an instance of
-- a shape lacks the name), the metatable's own cache of where its `__index` lives, and the
-- instruction's cache of the class slot. Each case changes what one of them remembered.
local function call(o) return o:m() end

local Class = {}
Class.__index = Class
function Class.m() return "class" end
local o = setmetatable({}, Class)
for _ = 1, 3 do print("plain", call(o)) end

-- The instance gains the method (new shape): its own wins.
o.m = function() return "own" end
for _ = 1, 3 do print("own", call(o)) end
o.m = nil
print("own removed", call(o))

-- __index reassigned in place (same slot of the metatable).
local Other = {m = function() return "other" end}
Class.__index = Other
for _ = 1, 3 do print("reassigned", call(o)) end
Class.__index = Class

-- Another metatable with the same shape of instance (the receiver's cache key is unchanged).
local Alt = {m = function() return "alt" end}
Alt.__index = Alt
setmetatable(o, Alt)
for _ = 1, 3 do print("metatable swapped", call(o)) end

-- A metatable without __index that gets one later (a new field: a new shape).
local Late = {}
local p = setmetatable({}, Late)
print("no __index", pcall(call, p))
Late.__index = {m = function() return "late" end}
for _ = 1, 3 do print("late __index", call(p)) end
Late.__index = nil
print("__index removed", pcall(call, p))

-- A metatable that is a dictionary (more string keys than a shape holds).
local Dict = {}
for i = 1, 100 do Dict["f" .. i] = i end
Dict.__index = {m = function() return "dict" end}
local q = setmetatable({}, Dict)
for _ = 1, 3 do print("dictionary metatable", call(q)) end
for i = 101, 400 do Dict["f" .. i] = i end
Dict.__index = {m = function() return "dict rehashed" end}
for _ = 1, 3 do print("after rehash", call(q)) end

-- An instance that is a dictionary gains the method without a new shape.
local big = setmetatable({}, Class)
for i = 1, 100 do big["g" .. i] = i end
print("dictionary instance", call(big))
big.m = function() return "dictionary own" end
print("dictionary instance own", call(big))

-- A chain of classes, and a class that gains the method on the way.
local A = {} A.__index = A function A.m() return "A" end
local B = setmetatable({}, A) B.__index = B
local C = setmetatable({}, B) C.__index = C
local c = setmetatable({}, C)
for _ = 1, 2 do print("chain", call(c)) end
function B.m() return "B" end
for _ = 1, 2 do print("chain, B gained it", call(c)) end

-- String methods, and the string metatable's __index replaced.
local function up(s) return s:upper() end
print("string", up("abc"))
local smt = getmetatable("")
local saved = smt.__index
smt.__index = {upper = function() return "replaced" end}
print("string replaced", up("abc"))
smt.__index = saved
print("string restored", up("abc"))
