-- io.open with modes fopen does not know: 5.1.5 passes the mode to fopen unchecked, so glibc
-- decides (an unknown first letter fails with EINVAL; extra letters after a valid prefix
-- are ignored).
local name = os.tmpname()
local function clean(...)
  local r = {...}
  for i = 1, select("#", ...) do r[i] = (string.gsub(tostring(r[i]), name, "TMP")) end
  return table.concat(r, " | ")
end
for _, mode in ipairs({"x", "", "rw", "r+x", "wt", "rz"}) do
  local f, msg, code = io.open(name, mode)
  print(mode, io.type(f), clean(msg, code))
  if f then f:close() end
end
os.remove(name)
