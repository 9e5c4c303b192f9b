-- An uncaught assert without a message: "assertion failed!" located at the assert.
local function check(v) assert(v) return v end
print(check(1), check("x"))
check(nil)
