-- Strings have a metatable whose __index is the string table, so methods work on
-- string values (and on parenthesised literals); numbers do not have methods; adding
-- a function to `string` makes it available as a method.
local s = "hello"
print(s:upper(), s:len(), s:sub(2, 3), s:rep(2), s:byte(1))
print(("x"):rep(3), ("abc"):upper(), ("%d-%s"):format(5, "z"))
print(("a,b,c"):find(",", 1, true), ("key=val"):match("(%w+)=(%w+)"))
print(#s, type(s.len), s.len == string.len)
print(s:reverse():upper():lower())
-- Methods through indexing syntax.
print(s["upper"](s), ("x").rep("y", 2))
-- Unknown method names give nil (and calling them fails).
print(s.nosuch)
print(pcall(function() return s:nosuch() end))
-- Numbers don't have a metatable.
print(pcall(function() local n = 5 return n:rep(2) end))
-- Extending the string table.
function string.shout(str) return str:upper() .. "!" end
print(("hi"):shout(), s:shout())
string.shout = nil
-- Changing the string metatable's __index to a function.
local mt = getmetatable("")
local old = mt.__index
mt.__index = function(str, k)
  if k == "first" then return str:sub(1, 1) end
  return old[k]
end
print(("world").first, ("world"):len())
mt.__index = old
print(("world").first)
-- gsub and gmatch as methods.
print(("one two three"):gsub("%w+", string.upper))
for w in ("a1 b2 c3"):gmatch("%a%d") do io.write(w, ";") end
print()
-- Indexing a string with a number gives nil (string table has no numeric keys).
print(s[1], s[0])
