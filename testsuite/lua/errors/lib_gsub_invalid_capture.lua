-- string.gsub with a replacement referring to a capture that does not exist: "invalid
-- capture index" (as %2 with one capture).
print((string.gsub("hello world", "(o)", "[%1]")))
print((string.gsub("hello world", "(o)", "[%2]")))
