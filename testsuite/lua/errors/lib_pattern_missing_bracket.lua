-- A malformed pattern passed to string.find from a loop: "malformed pattern (missing ']')".
local patterns = {"%d+", "[a-z]+", "[abc"}
for _, p in ipairs(patterns) do
  print(p, string.find("abc123", p))
end
