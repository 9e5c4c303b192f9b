-- file:read("*n") on a temporary file: integers, signs, decimals, exponents, hex, leading
-- whitespace and newlines, a lone sign, a number followed by a comma, and end of file.
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
check("42", "*n", "*n")
check("  -17  +5", "*n", "*n", "*n")
check("3.25e2 .5 5.", "*n", "*n", "*n")
check("0x10 0XfF", "*n", "*n")
check("\n\n  7\n8", "*n", "*n", "*l")
check("- 5", "*n", "*l")
check("1,2", "*n", "*n", "*l")
check("", "*n", "*l", "*a")
check("99999999999999999999", "*n")
check("1.5\n2.5\n", "*n", "*n", "*n")
os.remove(name)
