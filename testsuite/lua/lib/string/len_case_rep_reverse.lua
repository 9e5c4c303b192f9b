-- string.len, lower, upper, rep and reverse: empty strings, embedded zeros, numbers as
-- arguments, non-letter bytes left alone, rep with zero/negative counts (5.1 has no
-- separator argument), and the argument errors.
print(string.len(""), string.len("abc"), string.len("a\0b\0"), string.len(12345), #"x\0")
print(string.lower("HeLLo World 123!"), string.upper("HeLLo World 123!"))
print(string.lower(""), string.upper(""), string.lower(42), string.upper(1.5))
print(string.upper("\0a\0") == "\0A\0", string.lower("ÀB") == "Àb")
print(string.rep("ab", 3), string.rep("ab", 1), string.rep("ab", 0), string.rep("ab", -2))
print(string.rep("", 100), #string.rep("x", 1000), string.rep(7, 3), string.rep("ab", 2.9))
print(string.rep("ab", 3, ","))
print(string.reverse("abc"), string.reverse(""), string.reverse("a"), string.reverse(123))
print(string.reverse("a\0b") == "b\0a")
print(("Mixed"):lower(), ("Mixed"):upper(), ("ab"):rep(2), ("ab"):reverse(), ("abc"):len())
local letters = {}
for i = 0, 255 do
  local c = string.char(i)
  if c:upper() ~= c then letters[#letters + 1] = c end
end
print(#letters, table.concat(letters))
print(pcall(string.len))
print(pcall(string.len, {}))
print(pcall(string.lower))
print(pcall(string.upper, nil))
print(pcall(string.rep, "x"))
print(pcall(string.rep, "x", "y"))
print(pcall(string.reverse, true))
print(pcall(function() return ("x"):rep() end))
print(pcall(function() return string.rep() end))
