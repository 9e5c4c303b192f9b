-- An error caught by pcall and rethrown with level 0 keeps its original position;
-- the output printed by the handler comes first.
local function parse(s)
  local n = tonumber(s)
  if not n then error("not a number: " .. s) end
  return n
end
local ok, err = pcall(parse, "12")
print(ok, err)
ok, err = pcall(parse, "twelve")
print(ok, err)
if not ok then
  print("cleaning up")
  error(err, 0)
end
