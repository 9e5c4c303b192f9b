-- io.lines() with no file name iterates over stdin's lines (without newlines, including
-- empty ones), stops at end of file, and leaves stdin open (io.read then returns nil).
-- ljr-test: stdin=lines_stdin.txt
local n = 0
for line in io.lines() do
  n = n + 1
  print(n, "[" .. line .. "]", #line)
end
print("count", n)
print(io.read("*l"), io.read("*a"))
print(io.type(io.stdin))
