-- debug.getinfo's 'L' option: the lines that have code, as 5.1's line info names them (a closure's
-- line is its 'end'), nil for a native function; unknown options are an error.
local function f(a,
  b)
  local x = a

  return x + b
end
local t = debug.getinfo(f, "L").activelines
local ks = {} for k in pairs(t) do ks[#ks + 1] = k end table.sort(ks) print(table.concat(ks, " "))
print(debug.getinfo(print, "L").activelines, debug.getinfo(1, "L").activelines ~= nil)
print(pcall(debug.getinfo, 1, "x"))
local main = debug.getinfo(1, "SL")
local ks = {} for k in pairs(main.activelines) do ks[#ks + 1] = k end table.sort(ks) print(table.concat(ks, " "))
