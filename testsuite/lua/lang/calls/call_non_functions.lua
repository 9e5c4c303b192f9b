-- Calling values that are not functions, in every call form, twice per site so the call
-- inline caches are warm: every one is an error naming the value's type. The number 0 once
-- matched the empty call cache (whose key was 0) and crashed the VM.
local values = {0, -0, 1, 0/0, 1/0, "", "x", true, false, {}, newproxy(), coroutine.create(function() end)}
local function kind(v) local t = type(v) return t == "number" and tostring(v) or t end
local t = {}
local function tail(f) return f(1) end
local function varargs(f, ...) return f(...) end
local forms = {
  {"local", function(v) local f = v return f() end},
  {"local, one result", function(v) local f = v local r = f() return r end},
  {"local, no result", function(v) local f = v f() end},
  {"global", function(v) G = v return G(1, 2) end},
  {"field", function(v) t.f = v return t.f() end},
  {"index", function(v) t[1] = v return t[1]() end},
  {"method", function(v) t.m = v return t:m() end},
  {"tail", function(v) return tail(v) end},
  {"varargs", function(v) return varargs(v, 1, 2, 3) end},
  {"pcall", function(v) return select(2, pcall(v)) end},
  {"for iterator", function(v) for x in v do return x end end},
  {"upvalue", function(v) local f = v return (function() return f() end)() end},
}
for _, form in ipairs(forms) do
  for _, v in ipairs(values) do
    for round = 1, 2 do
      local ok, e = pcall(form[2], v)
      print(form[1], kind(v), round, ok, (string.gsub(tostring(e), "^.-:%d+: ", "")))
    end
  end
end
-- The sites still call functions afterwards.
for _, form in ipairs(forms) do
  print(form[1], pcall(form[2], function(...) return "called", select('#', ...) end))
end
