-- PENDING: ljr differs from lua5.1.
-- When the function at the requested level was replaced by a tail call, lua5.1's
-- getfenv/setfenv raise "no function environment for tail call at level N"; ljr
-- returns the environment of some other frame (getfenv) or says it cannot change the
-- environment (setfenv).
-- Expected (lua5.1):
--   false	env_fenv_tail_call_level.lua:15: no function environment for tail call at level 2
--   false	env_fenv_tail_call_level.lua:18: no function environment for tail call at level 2
--   true	true
-- Actual (ljr):
--   true	true
--   false	env_fenv_tail_call_level.lua:18: 'setfenv' cannot change environment of given object
--   true	true
-- getfenv(2)/setfenv(2) from a function that was tail-called.
local function inner() return getfenv(2) == _G end
local function outer() return inner() end
print(pcall(outer))
local function setter() setfenv(2, {}) end
local function outer2() return setter() end
print(pcall(outer2))
local function lvl1() return getfenv(1) == _G end
local function outer3() return lvl1() end
print(pcall(outer3))
