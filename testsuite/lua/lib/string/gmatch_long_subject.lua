-- ljr-test: timeout=10
-- string.gmatch over a long subject: each step must continue from the saved position in
-- time independent of the subject's length (lua5.1 runs this in well under a second).
local text = string.rep("ab ", 500000)
local words, letters = 0, 0
for w in string.gmatch(text, "%a+") do
  words = words + 1
  letters = letters + #w
end
print(#text, words, letters)
local pairs_seen = 0
for a, b in text:gmatch("(%a)(%a)") do
  if a == "a" and b == "b" then pairs_seen = pairs_seen + 1 end
end
print(pairs_seen)
