-- Concatenating a table held in an upvalue names the upvalue.
local u = {}
local function describe(prefix)
  return prefix .. u
end
print("start")
print(describe("value: "))
