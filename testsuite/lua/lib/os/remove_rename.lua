-- os.remove and os.rename on temporary files: success returns true; failures return nil, a
-- message (the temporary path replaced by TMP) and the errno; removing a directory-like
-- missing path, renaming over an existing file, and the argument errors.
local a = os.tmpname()
local b = os.tmpname()
local function clean(s)
  if type(s) ~= "string" then return s end
  s = string.gsub(s, a, "TMP_A")
  s = string.gsub(s, b, "TMP_B")
  return s
end
local function show(...)
  local r = {...}
  for i = 1, select("#", ...) do r[i] = tostring(clean(r[i])) end
  print(table.concat(r, " | "))
end
local f = assert(io.open(a, "w")) f:write("content A") f:close()
show(os.rename(a, b))
local g = io.open(b, "r") print(g:read("*a")) g:close()
show(io.open(a, "r"))
show(os.rename(a, b))
show(os.remove(a))
f = assert(io.open(a, "w")) f:write("new A") f:close()
show(os.rename(a, b))
g = io.open(b, "r") print(g:read("*a")) g:close()
show(os.remove(b))
show(os.remove(b))
show(os.remove("/nonexistent-dir-ljr/file"))
show(os.rename("/nonexistent-dir-ljr/x", "/nonexistent-dir-ljr/y"))
print(pcall(os.remove))
print(pcall(os.rename, "x"))
print(pcall(os.remove, {}))
print(pcall(function() return os.rename() end))
