-- The library's string builders reuse their memory: a builder started while another is in
-- use (format, upper, reverse inside a gsub callback) must not share or clobber its bytes,
-- and a result built after a long one is not padded with the long one's leftovers.
local s = ("abc,def,ghi,"):rep(3)
local out = s:gsub("(%a+)", function(w)
  local inner = string.format("<%s:%5.2f:%-4d|%q>", w:upper(), #w / 3, #w, w:reverse())
  return inner .. ("x"):rep(2):gsub("x", function(c) return c:upper() end)
end)
print(out)
local long = string.format("%s", ("z"):rep(100000))
print(#long, long:sub(1, 3), long:sub(-3))
print(string.format("[%s]", "short"), ("MiXeD"):lower(), ("MiXeD"):upper(), ("abc"):reverse())
for i = 1, 5 do
  io.write(string.format("%3d %-6s %5.1f %x %c|", i, ("v"):rep(i), i * 1.5, i * 255, 64 + i))
end
print()
-- Specs at their longest: five flags, two digits of width and of precision.
print(string.format("%-+ #0d|%+ 08.3f|%#10.2e|%-+ #012x", 5, 3.14159, 12345.678, 255))
print(pcall(string.format, "%-+ #0-d", 1))
print(pcall(string.format, "%100d", 1))
print(pcall(string.format, "%.100f", 1))
