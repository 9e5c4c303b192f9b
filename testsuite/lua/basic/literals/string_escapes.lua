-- Short string escapes shared by every Lua version: the C-like letters, quotes and
-- backslash, decimal escapes of up to three digits, and a backslash-newline.
-- Escapes are checked through `#` and `==` as well as printed, so invisible bytes count.
print("letters", "[\a]" == "[\7]", "[\b]" == "[\8]", "[\f]" == "[\12]", "[\v]" == "[\11]")
print("tab[\t]newline[\n]end")
print("cr", #"\r", "\r" == "\13")
print("quotes", "dq\"dq", 'sq\'sq', "mix'ed", 'mix"ed', "\'", '\"')
print("backslash", "a\\b", #"\\", "\\n is not a newline")
print("decimal", "\65\66\67", "\072\105", "\0491", "\97\98\99" == "abc")
print("three digits max", "\1234", #"\1234", "\0012", #"\0012")
print("high bytes", #"\200\255", "\255" > "\254")
print("nul", #"\0", #"a\0b\0c", "\0" == "\000")
print("line\
continued", #"x\
y")
local s = "\104\101\108\108\111"
print(s, #s, s == "hello")
