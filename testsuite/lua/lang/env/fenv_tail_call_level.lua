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
