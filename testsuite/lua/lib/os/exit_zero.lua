-- os.exit(0) ends the program at once with status 0; output written before it (even without
-- a trailing newline, and to a buffered file) is flushed, and nothing after it runs.
print("before exit")
io.write("partial line")
io.stdout:write(" via stdout")
local name = os.tmpname()
local f = io.open(name, "w")
f:write("buffered")
f:close()
os.remove(name)
for i = 1, 3 do
  if i == 2 then os.exit(0) end
  print("iteration", i)
end
print("not reached")
