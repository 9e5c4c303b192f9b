-- Every metamethod event against every kind of handler value: Lua function, native function,
-- table with __call, userdata with __call, boolean/number/string with a debug.setmetatable
-- __call, nil, false, a non-callable table. Each case runs protected and prints its outcome.

local function lua_handler(...)
  local n = select('#', ...)
  return "lua:" .. n
end

local callable_table = setmetatable({}, {__call = function(self, ...)
  return "ctab:" .. select('#', ...)
end})

local callable_udata = newproxy(true)
getmetatable(callable_udata).__call = function(self, ...)
  return "cud:" .. select('#', ...)
end

local handlers = {
  {"lua function", function() return lua_handler end},
  {"native function", function() return select end},
  {"native type", function() return type end},
  {"callable table", function() return callable_table end},
  {"callable userdata", function() return callable_udata end},
  {"callable boolean", function() return true end, true},
  {"callable number", function() return 42 end, 0},
  {"false", function() return false end},
  {"plain table", function() return {} end},
  {"table with __call = false", function() return setmetatable({}, {__call = false}) end},
  {"table with __call = table", function() return setmetatable({}, {__call = callable_table}) end},
  {"string", function() return "str" end},
}

local function with_call_mt(sample, f)
  if sample == nil then return f() end
  local old = debug.getmetatable(sample)
  debug.setmetatable(sample, {__call = function(self, ...) return "cprim:" .. type(self) .. ":" .. select('#', ...) end})
  local r = {pcall(f)}
  debug.setmetatable(sample, old)
  if not r[1] then error(r[2], 0) end
  return unpack(r, 2)
end

local ops = {
  {"__add", "return a + 1"}, {"__add", "return 1 + a"}, {"__add", "return a + b"},
  {"__sub", "return a - 1"}, {"__mul", "return 2 * a"}, {"__div", "return a / b"},
  {"__mod", "return a % 3"}, {"__pow", "return a ^ 2"}, {"__unm", "return -a"},
  {"__concat", "return a .. 'x'"}, {"__concat", "return 'x' .. a"}, {"__concat", "return 'x' .. a .. 'y'"},
  {"__len", "return #u"},
  {"__eq", "return a == b"}, {"__eq", "return a ~= b"}, {"__eq", "if a == b then return 'yes' else return 'no' end"},
  {"__lt", "return a < b"}, {"__lt", "return a > b"}, {"__lt", "if a < b then return 'yes' else return 'no' end"},
  {"__le", "return a <= b"}, {"__le", "if a >= b then return 'yes' else return 'no' end"},
  {"__lt", "return a <= b"}, -- 5.1 falls back to not (b < a)
  {"__index", "return a.field"}, {"__index", "return a[1]"}, {"__index", "local k = 'dyn' return a[k]"},
  {"__index", "return a:method()"}, {"__index", "return u.field"},
  {"__newindex", "a.field = 5 return rawget(a, 'field')"}, {"__newindex", "a[1] = 5 return rawget(a, 1)"},
  {"__newindex", "local k = 'dyn' a[k] = 5 return rawget(a, k)"},
  {"__call", "return a(1, 2)"}, {"__call", "return (a(1, 2))"}, {"__call", "local x = a(1) return x"},
  {"__call", "return select('#', a(1, 2, 3))"}, {"__call", "return pcall(a, 1)"},
  {"__call", "for k in a do return k end"},
  {"__index", "setfenv(1, a) return undefined_global"},
  {"__newindex", "setfenv(1, a) new_global = 1 return rawget(a, 'new_global')"},
  {"__tostring", "return tostring(a)"},
  {"__index", "return rawget(a, 'x')"},
}

local function show(...)
  local out = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    local t = type(v)
    if t == "table" or t == "userdata" or t == "function" or t == "thread" then v = t end
    out[#out + 1] = tostring(v)
  end
  return table.concat(out, ", ")
end

for _, op in ipairs(ops) do
  local event, code = op[1], op[2]
  for _, h in ipairs(handlers) do
    local name, make, sample = h[1], h[2], h[3]
    local mt = {}
    mt[event] = make()
    local a, b = setmetatable({}, mt), setmetatable({}, mt)
    local u = newproxy(true)
    getmetatable(u)[event] = mt[event]
    local chunk = assert(loadstring("local a, b, u = ... " .. code, "=case"))
    local r = {with_call_mt(sample, function() return pcall(chunk, a, b, u) end)}
    print(event, code, name, r[1], show(unpack(r, 2, table.maxn(r))))
  end
end
print("done")
