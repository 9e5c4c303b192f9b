-- A long comment that is never closed runs to the end of the file.
print("not printed")
--[==[ this comment is closed with the wrong level ]=]
print("still in the comment")
