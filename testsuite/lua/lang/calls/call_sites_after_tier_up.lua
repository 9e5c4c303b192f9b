-- Call sites whose callees change tier under them: a site caches a callee while that runs in
-- the interpreter, then the callee is compiled (in JIT code the site's stub must follow it to
-- its new entry); a site that first sees one closure turns to keying by prototype when it sees
-- another closure of the same one, while its callees are compiled one after another. Run with
-- a tier-up threshold above 1, functions are compiled in the middle of all this.

-- Composition: the call `g(x)` in the composed closure sees composed closures (its own
-- prototype) and the identity; the tail call `f(...)` sees closures of one adder prototype.
local function compose(f, g) return function(x) return f(g(x)) end end
local function chain(n)
  local f = function(x) return x end
  for k = 1, n do
    local kk = k
    f = compose(function(x) return x + kk end, f)
  end
  return f
end
local total = 0
for round = 1, 150 do
  for _, n in ipairs({ 1, 3, 5, 10 }) do
    local r = chain(n)(round)
    if r ~= round + n * (n + 1) / 2 then print("wrong", round, n, r) end
    total = total + r
  end
end
print("chains", total)

-- A callee hot only later: the site caches it early, it is compiled after the caller.
local function slow_start(x) return x * 3 end
local function caller(n, x)
  local s = 0
  for i = 1, n do s = s + slow_start(x + i) end
  return s
end
local acc = 0
for round = 1, 60 do acc = acc + caller(round % 4 + 1, round) end
for i = 1, 2000 do acc = acc + slow_start(i) end
for round = 1, 60 do acc = acc + caller(3, round) end
print("later", acc)

-- Direct stubs of several callees first, then closures of one of their prototypes.
local function mk(k) return function(x) return x + k end end
local direct = { mk(1), mk(2), function(x) return -x end }
local function site(f, x) local r = f(x) return r end
local s = 0
for round = 1, 200 do
  s = s + site(direct[round % 3 + 1], round)
  if round > 100 then s = s + site(mk(round), round) end
end
print("modes", s)
