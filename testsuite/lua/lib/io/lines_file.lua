-- io.lines(filename) and file:lines(): lines without their newlines, a last line without a
-- newline, empty lines, CR characters kept, file:lines leaving the file open, and a missing
-- file raising an error with the file name.
local name = os.tmpname()
local f = assert(io.open(name, "w"))
f:write("one\n\nthree\r\nfour")
f:close()
for line in io.lines(name) do io.write("[", line, "]") end print()
local count = 0
for line in io.lines(name) do count = count + #line end
print("chars", count)
f = assert(io.open(name, "r"))
for line in f:lines() do io.write("<", line, ">") end print()
print(io.type(f), f:read("*a") == "", f:read("*l"))
f:close()
f = assert(io.open(name, "r"))
print(f:read("*l"))
local rest = {}
for line in f:lines() do rest[#rest + 1] = line end
print(#rest, rest[1] == "", rest[2])
f:close()
local it = io.lines(name)
print(it(), it(), it(), it())
local ok, e = pcall(io.lines, name .. ".missing")
print(ok, (string.gsub(e, name, "TMP")))
print(pcall(io.lines, {}))
os.remove(name)
