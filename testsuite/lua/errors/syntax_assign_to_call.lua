-- A function call cannot be the target of an assignment.
local t = {}
local function get() return t end
get().field = 1
get() = 2
