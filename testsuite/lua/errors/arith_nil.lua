-- Arithmetic on a nil constant: the output before the error must appear, then the
-- script stops with exit status 1 and no variable name in the message.
print("before the error")
local x = nil + 1
print("never printed", x)
