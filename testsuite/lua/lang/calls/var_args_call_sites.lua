-- Calls whose argument count includes a previous call's results (`f(a, g())`: CallVarArgs,
-- `return f(a, g())`: TailCallVarArgs) have call inline caches and, in JIT code, stubs like
-- every other call: one callee (direct mode), a few, many closures of one function (closure
-- mode), natives, tables with __call, non-functions, errors through the site, and result
-- counts from zero to many.
local function pack(...) return select('#', ...), ... end
local function three() return 1, 2, 3 end
local function none() end
local function many() local t = {} for i = 1, 40 do t[i] = i end return unpack(t) end

local function site(f, g) return (f(0, g())) end
local function tail_site(f, g) return f(0, g()) end

local function add_all(...) local s = 0 for i = 1, select('#', ...) do s = s + (select(i, ...)) end return s end
local function count(...) return select('#', ...) end

for round = 1, 3 do
  print(site(add_all, three), site(count, none), site(count, many), site(add_all, many))
  print(tail_site(add_all, three), tail_site(count, none), tail_site(count, many))
end

-- many closures of one function at one site, then many different functions
local total = 0
for i = 1, 60 do
  local k = i
  local f = function(a, ...) return a + k + select('#', ...) end
  total = total + site(f, three) + tail_site(f, none)
end
print(total)
local fs = {}
for i = 1, 12 do
  fs[i] = loadstring("return function(a, ...) return a + " .. i .. " * select('#', ...) end")()
end
total = 0
for r = 1, 5 do
  for i = 1, #fs do total = total + site(fs[i], three) + tail_site(fs[i], many) end
end
print(total)

-- natives, __call tables, non-functions and errors
print(site(math.max, three), tail_site(math.min, three), site(tostring, none))
print(pcall(site, string.rep, function() return "ab", 3 end))
local callable = setmetatable({}, { __call = function(self, a, ...) return a + count(...) + 100 end })
print(site(callable, three), tail_site(callable, many))
print(pcall(site, nil, three))
print(pcall(tail_site, 42, none))
print(pcall(site, function(a, b) error("boom " .. tostring(b)) end, three))
print(pack(tail_site(pack, three)))
-- a site that saw a function sees a table with __call, then the function again
for _, f in ipairs({ add_all, callable, add_all, count, callable }) do
  io.write(site(f, three), " ", tail_site(f, three), " ")
end
print()
