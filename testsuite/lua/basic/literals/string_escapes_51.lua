-- Lua 5.1 specifics: an unknown escape like \x or \z (both added in 5.2) stands for the
-- character itself, so "\x41" is the three characters x41, not "A".
print("\x41", #"\x41")
print("a\zb", #"\z")
print("\q\w\y", #"\q\w\y")
