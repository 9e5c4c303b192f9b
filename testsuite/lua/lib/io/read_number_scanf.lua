-- file:read("*n") is fscanf("%lf") in 5.1: a number followed by letters stops before them,
-- a failed read pushes back the one character that did not fit (so "abc 12" is left intact
-- and " eight" loses only the blank), "1e" reads as 1 consuming the "e", and glibc accepts
-- "inf".
local name = os.tmpname()
local function check(content, ...)
  local f = assert(io.open(name, "w")) f:write(content) f:close()
  f = assert(io.open(name, "r"))
  local results = {}
  local formats = {...}
  for i = 1, #formats do
    local v = f:read(formats[i])
    results[#results + 1] = type(v) == "string" and ("'" .. v .. "'") or tostring(v)
  end
  f:close()
  print(string.format("%-16q", content), table.concat(results, " "))
end
check("12abc", "*n", "*l")
check("abc 12", "*n", "*l")
check("1e", "*n", "*l")
check("inf nan", "*n", "*l")
check("7 eight", "*n", "*n", "*l")
os.remove(name)
