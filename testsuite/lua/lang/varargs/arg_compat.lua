-- Lua 5.1 compatibility (LUA_COMPAT_VARARG): every vararg function has a local named
-- `arg`; when the body does not use `...`, it holds a table with the extra arguments
-- and a field n; when the body uses `...`, the local is nil (it still hides the global).
function old(...)
  return arg.n, arg[1], arg[2], arg[3]
end
print(old())
print(old(1, 2))
print(old("a", nil, "c"))
local function old_len(...) return #arg end
print(old_len(), old_len(5, 6, 7))
function fixed_and_old(a, b, ...)
  return a, b, arg.n, arg[1]
end
print(fixed_and_old(1, 2, 3, 4))
print(fixed_and_old(1))
-- Using ... in the body: `arg` is the (nil) local, not the global.
function new(...)
  local n = select("#", ...)
  return n, type(arg), arg == _G.arg
end
print(new(1, 2, 3))
-- A non-vararg function sees the global arg.
local function plain(x) return type(arg), arg == _G.arg end
print(plain(1))
-- arg is a local: modifying it does not affect the global.
local function modify(...)
  arg = "replaced"
  return arg
end
print(modify(1), type(_G.arg))
-- An anonymous vararg function using arg.
local anon = function(...) return arg.n end
print(anon(nil, nil, nil))
-- Closures capture the arg table like any local.
local function mk(...)
  return function() return arg[1], arg.n end
end
print(mk("captured", 2)())
-- The script's own global arg table.
print(type(_G.arg), _G.arg[0])
