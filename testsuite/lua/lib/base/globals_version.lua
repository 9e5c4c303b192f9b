-- _G and _VERSION: _G is the global table and refers to itself, globals are its fields,
-- and _VERSION is "Lua 5.1".
print(_VERSION, type(_VERSION))
print(_G._G == _G, _G == getfenv(0))
new_global = "ng"
print(_G.new_global, rawget(_G, "new_global"))
_G.other_global = 5
print(other_global)
_G["name with spaces"] = 1
print(_G["name with spaces"])
for _, n in ipairs({"string", "table", "math", "io", "os", "coroutine", "debug"}) do
  io.write(n, "=", type(_G[n]), " ")
end
print()
