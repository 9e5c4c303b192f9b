-- The main chunk is a vararg function: `...` holds the script arguments (given by the
-- header below), and `arg` is the global table set up by the stand-alone interpreter.
-- ljr-test: args=one two 3
print(select("#", ...))
print(...)
local a, b, c, d = ...
print(a, b, c, d, type(c))
local t = {...}
print(#t, t[1], t[3])
print(type(arg), arg[1], arg[2], arg[3], #arg)
print(arg[0])
-- Chunks loaded with loadstring are vararg functions too.
local chunk = loadstring("return select('#', ...), ...")
print(chunk())
print(chunk(1, nil, 3))
local sum = loadstring("local s = 0 for i = 1, select('#', ...) do s = s + select(i, ...) end return s")
print(sum(1, 2, 3, 4))
-- Chunk arguments via a function.
local f = loadstring("local x, y = ... return y, x")
print(f("a", "b"))
