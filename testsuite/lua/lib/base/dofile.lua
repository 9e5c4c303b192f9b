-- dofile: runs a file written to a temporary path and returns all its results, propagates
-- errors raised by the chunk, reports syntax errors and missing files; dofile() with no
-- argument runs stdin (here a small chunk).
-- ljr-test: stdin=dofile_stdin.txt
local name = os.tmpname()
local function write(text)
  local f = assert(io.open(name, "w"))
  f:write(text)
  f:close()
end
local function clean(msg) return (string.gsub(tostring(msg), name, "TMP", 1)) end
write("return 1, 'two', nil, 4\n")
print(dofile(name))
print(select("#", dofile(name)))
write("local a, b = ...\nx_from_dofile = 10\nreturn select('#', ...)\n")
print(dofile(name), x_from_dofile)
write("error('boom')\n")
local ok, e = pcall(dofile, name)
print(ok, (string.gsub(e, "^.*:(%d+): ", "LINE %1: ")))
write("error({code = 7})\n")
ok, e = pcall(dofile, name)
print(ok, type(e), e.code)
write("return = 1\n")
ok, e = pcall(dofile, name)
print(ok, (string.gsub(e, "^.*:(%d+): ", "LINE %1: ")))
write("")
print(select("#", dofile(name)))
os.remove(name)
ok, e = pcall(dofile, name)
print(ok, clean(e))
print(dofile())
print(pcall(dofile, {}))
