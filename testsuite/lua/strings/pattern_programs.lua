-- Patterns are compiled once and cached (string/pattern.rs): a malformed part is still an error
-- only when a match reaches it, anchors stay per function (gmatch has none), and programs
-- evicted from the cache by a replacement function's own patterns keep working.
print(string.find("abc", "x["))
print(pcall(string.find, "abc", "a["))
print(string.gsub("hello world", "(o)", "[%1]"))
print(string.gsub("abc", "", "-"))
for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do print(k, v) end
print(string.find("  x", "^%s*"))
print(string.match("key = value", "^(%w+)%s*=%s*(%w+)$"))
print(string.find("a.b", ".", 1, true), string.find("THE (quick) fox", "%f[%a]%a+"))
print(string.gsub("abc", "^a", "x"), string.gsub("^abc", "^^", "x"))
for w in string.gmatch("^a^b", "^%a") do io.write(w, ";") end print()
print(string.find("abc", "()b()"))
print(pcall(string.gsub, "abc", "(", "x"))
print(pcall(string.find, "abc", "%1"))
-- A replacement function that uses more patterns than the cache holds.
local n = 0
print((string.gsub("a1b2c3d4", "(%a)(%d)", function(a, d)
  for i = 1, 20 do n = n + select(2, string.gsub(a .. d, "%d" .. string.rep("?", i % 5), "")) end
  return d .. a
end)), n)
-- The same pattern text through every function.
local p = "(%d+)"
print(string.find("ab 12 cd 345", p), string.match("ab 12 cd 345", p), string.gsub("ab 12 cd 345", p, "<%1>"))
for d in string.gmatch("ab 12 cd 345", p) do io.write(d, ",") end print()
