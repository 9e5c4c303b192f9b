-- Globals live in the environment table: _G refers to it, _G._G is itself, global
-- assignment and `function name()` create entries, assigning nil removes them, and
-- globals with computed names are reachable through _G.
print(_G._G == _G, type(_G))
gv = 1
print(_G.gv, _G["gv"], rawget(_G, "gv"))
_G.created_via_G = "via _G"
print(created_via_G)
function global_fn() return "gf" end
print(_G.global_fn(), type(_G["global_fn"]))
gv = nil
print(gv, rawget(_G, "gv"))
-- Computed global names.
for i = 1, 3 do _G["var" .. i] = i * 11 end
print(var1, var2, var3)
-- Counting the globals this script made.
local mine = {}
for k in pairs(_G) do
  if type(k) == "string" and (k:match("^var%d$") or k == "created_via_G" or k == "global_fn") then
    mine[#mine + 1] = k
  end
end
table.sort(mine)
print(table.concat(mine, " "))
-- A local shadows a global of the same name.
shadow = "global"
do
  local shadow = "local"
  print(shadow, _G.shadow)
end
print(shadow)
-- Standard library names are ordinary globals.
local saved_print = print
print = function(...) saved_print("wrapped:", ...) end
print("hello")
print = saved_print
print("restored")
-- Giving the whole chunk a proxy environment with __index/__newindex on _G.
local reads, writes = {}, {}
local proxy = setmetatable({}, {
  __index = function(_, k) reads[#reads + 1] = k return _G[k] end,
  __newindex = function(_, k, v) writes[#writes + 1] = k _G[k] = v end,
})
local code = loadstring("local s = tostring(1) answer = s .. '!' return answer")
setfenv(code, proxy)
print(code(), answer)
print(table.concat(reads, ","), table.concat(writes, ","))
-- Strict mode: error on reading undefined globals.
local strict = setmetatable({}, {__index = function(_, k)
  local v = rawget(_G, k)
  if v == nil then error("undefined global '" .. tostring(k) .. "'", 2) end
  return v
end})
local prog = loadstring("local a = type(1) return undefined_thing")
setfenv(prog, strict)
print(pcall(prog))
