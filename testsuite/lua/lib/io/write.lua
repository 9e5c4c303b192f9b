-- io.write: strings and numbers (integers, floats with %.14g, negative zero made at run
-- time), several arguments, no arguments, the result (true in 5.1, not the file), and the
-- errors for other value types.
io.write("a", "b", 1, 2.5, -3, 1e100, 1/3, "\n")
local z = 0
io.write(-z, " ", 2^53, " ", 0.1, "\n")
print(io.write(), io.write(""))
print(io.stdout:write("stdout:write ", 42, "\n"))
print(pcall(io.write, {}))
print(pcall(io.write, "ok ", nil))
print(pcall(io.write, true))
print(pcall(function() io.write("x", print) end))
io.write("\n")
io.write("embedded\0zero\n")
io.write(string.rep("long ", 10), "\n")
print(select("#", io.write("")))
