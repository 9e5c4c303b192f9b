-- os.date with fixed times in UTC ("!"): the default format, every common strftime
-- conversion, "*t"/"!*t" tables (fields printed sorted), literal text and "%%", times before
-- 1970 and far in the future, and the argument errors.
local t0 = 86400 * 365
local times = {0, t0, 951782400, 1234567890, 2147483647, 4102444800, -86400}
for _, t in ipairs(times) do print(t, os.date("!%Y-%m-%d %H:%M:%S", t)) end
print(os.date("!%c", t0))
print(os.date("!%x | %X | %D | %T | %R", 1234567890))
print(os.date("!%a %A %b %B %h", 1234567890))
print(os.date("!%d %e %j %m %y %Y %C", 1234567890))
print(os.date("!%H %I %M %S %p", 1234567890))
print(os.date("!%H %I %p", 1234567890 - 12 * 3600))
print(os.date("!%u %w %U %W %V %G %g", 1234567890))
print(os.date("!%n|%t|%%|", 0))
print(os.date("!no conversions", 0), os.date("!", 0) == "")
print(os.date("!%s", 1234567890))
print(os.date("!%z %Z", 0) ~= nil)
local function show(tab)
  local keys = {}
  for k in pairs(tab) do keys[#keys + 1] = k end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. tostring(tab[k]) end
  return table.concat(out, " ")
end
print(show(os.date("!*t", 0)))
print(show(os.date("!*t", 1234567890)))
print(show(os.date("!*t", 951782400)))
print(show(os.date("!*t", -1)))
-- The local-time table has the same fields (values depend on the time zone).
local lt = os.date("*t", 1234567890)
local names = {}
for k, v in pairs(lt) do names[#names + 1] = k .. ":" .. type(v) end
table.sort(names)
print(table.concat(names, " "))
print(type(os.date()), type(os.date("%Y")), #os.date("!%Y", 0))
print(pcall(os.date, "!%Y", "x"))
print(pcall(os.date, {}))
print(pcall(function() return os.date("!%Y", {}) end))
