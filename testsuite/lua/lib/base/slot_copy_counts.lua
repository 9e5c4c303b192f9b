-- Values copied between frames and stacks, at every count from 0 to 40: pcall's arguments and
-- results, resume's and yield's values (both directions, create and wrap), and a call's
-- results kept to the last (a call as the last argument). The generated copies are the
-- generator's own loop; each count must move every value, nils and the last one included.
local function pack(...) return {n = select('#', ...), ...} end
local function seq(n, hole)
  local t = {}
  for i = 1, n do t[i] = (i == hole) and nil or i * 10 end
  return t
end
local function check(what, n, t, offset)
  offset = offset or 0
  assert(t.n == n + offset, what .. " count " .. n .. ": got " .. tostring(t.n))
  local sum = 0
  for i = 1, n do
    local v = t[i + offset]
    sum = sum + (v or -1)
  end
  return sum
end
local function ret(...) return ... end
local total = 0
for n = 0, 40 do
  for _, hole in ipairs({0, 1, n}) do
    local args = seq(n, hole)
    -- pcall: arguments in, results out
    total = total + check("pcall", n, pack(pcall(ret, unpack(args, 1, n))), 1)
    -- a call's results as the last argument of another call
    total = total + check("multret", n, pack(ret(unpack(args, 1, n))))
    -- resume passes values in, yield passes them out, and back
    local co = coroutine.create(function(...)
      local got = pack(...)
      local back = pack(coroutine.yield(unpack(got, 1, got.n)))
      return unpack(back, 1, back.n)
    end)
    total = total + check("resume->yield", n, pack(coroutine.resume(co, unpack(args, 1, n))), 1)
    total = total + check("resume->return", n, pack(coroutine.resume(co, unpack(args, 1, n))), 1)
    local w = coroutine.wrap(function(...)
      local got = pack(...)
      local back = pack(coroutine.yield(unpack(got, 1, got.n)))
      return unpack(back, 1, back.n)
    end)
    total = total + check("wrap->yield", n, pack(w(unpack(args, 1, n))))
    total = total + check("wrap->return", n, pack(w(unpack(args, 1, n))))
    -- xpcall's results
    total = total + check("xpcall", n, pack(xpcall(function() return unpack(args, 1, n) end, print)), 1)
  end
end
print("total", total)
-- An error value crosses the same copies.
print(pcall(pcall, error, "e"))
print(coroutine.resume(coroutine.create(function() error({}) end)) == false)
