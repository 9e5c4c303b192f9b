-- and/or evaluate their right operand only when needed; side effects in functions show
-- which operands ran. Globals carry the effect since functions may not capture locals.
calls = ""
function mark(name, value)
  calls = calls .. name
  return value
end
local r = mark("a", false) and mark("b", true)
print(r, calls)
calls = ""
r = mark("a", 1) and mark("b", 2)
print(r, calls)
calls = ""
r = mark("a", 1) or mark("b", 2)
print(r, calls)
calls = ""
r = mark("a", nil) or mark("b", 2)
print(r, calls)
calls = ""
r = mark("a", nil) or mark("b", false) or mark("c", "C") or mark("d", "D")
print(r, calls)
calls = ""
r = mark("a", 1) and mark("b", nil) and mark("c", 3)
print(r, calls)
calls = ""
-- In conditions too.
if mark("x", false) and mark("y", true) then print("then") else print("else") end
if mark("p", 1) or mark("q", 1) then print("then") end
print(calls)
-- A guard avoids an error in the right operand.
local v = nil
print(v ~= nil and v + 1 or "guarded")
calls = ""
local i = 0
while mark("w", i < 3) and mark("!", true) do i = i + 1 end
print(i, calls)
