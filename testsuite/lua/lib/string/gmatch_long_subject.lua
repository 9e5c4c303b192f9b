-- string.gmatch over a long subject: matches, captures and positions after a long run of
-- non-matching characters. (ljr once copied the subject at every step, which made such a
-- loop quadratic; the wordfreq benchmark watches the speed, this test the results.)
local text = string.rep("1", 3000000) .. string.rep("ab ", 20000)
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
