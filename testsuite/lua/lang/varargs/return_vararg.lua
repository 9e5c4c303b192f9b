-- `return ...` (the vararg expression alone in a return) returns all the arguments,
-- including nils and none at all; also after other values and through nested calls.
local function pass(...) return ... end
print(pass(1, 2, 3))
local function prefixed(...) return "x", ... end
print(prefixed(1, 2, 3))
local function nested(...) do return ... end end
print(nested(1, 2, 3))
print(select("#", pass()), select("#", pass(nil, nil)), select("#", pass(1, 2, 3)))
local function pass2(...) return pass(pass(...)) end
print(select("#", pass2(1, nil, 3, nil)), pass2(1, nil, 3, nil))
