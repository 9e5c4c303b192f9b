-- Comments: line comments, long comments of several levels, a long comment that ends
-- mid-line, and comment-like text inside strings.
print("one") -- trailing comment
--[[ a long
comment print("not run") ]] print("two")
--[==[ level 2 with ]] inside
print("not run")
]==]
print("three" --[[ inline ]] .. "!")
---[[ this is a line comment, so the next line runs
print("four")
--]]
print("-- not a comment", "--[[ nor this ]]")
--[ single bracket is just a line comment
print("five")
-- A comment on the last line without a newline is fine too.
print("end") -- no final newline