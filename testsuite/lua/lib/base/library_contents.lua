-- The full contents of 5.1's standard library: every base function (including module and
-- newproxy), the function names of each library table, and package.loaded entries.
local names = {}
for _, n in ipairs({"assert", "collectgarbage", "dofile", "error", "getfenv", "getmetatable",
    "ipairs", "load", "loadfile", "loadstring", "next", "pairs", "pcall", "print", "rawequal",
    "rawget", "rawset", "select", "setfenv", "setmetatable", "tonumber", "tostring", "type",
    "unpack", "xpcall", "gcinfo", "module", "require", "newproxy"}) do
  names[#names + 1] = n .. "=" .. type(_G[n])
end
print(table.concat(names, " "))
local libs = {}
for _, n in ipairs({"string", "table", "math", "io", "os", "coroutine", "debug", "package"}) do
  libs[#libs + 1] = n .. "=" .. type(_G[n])
end
print(table.concat(libs, " "))
print(package.loaded.string == string, package.loaded._G == _G, package.loaded.math == math)
-- Counting the functions of each library (5.1's sets).
local function count(t)
  local fns = {}
  for k, v in pairs(t) do if type(v) == "function" then fns[#fns + 1] = k end end
  table.sort(fns)
  return #fns .. " " .. table.concat(fns, ",")
end
print("string", count(string))
print("table", count(table))
print("math", count(math))
print("os", count(os))
print("io", count(io))
print("coroutine", count(coroutine))
print("debug", count(debug))
