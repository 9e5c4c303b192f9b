-- repeat-until: the body runs at least once, and the until condition can see locals
-- declared in the body.
local i = 0
repeat
  i = i + 1
until i >= 5
print("i", i)
local runs = 0
repeat runs = runs + 1 until true
print("runs at least once", runs)
local n = 27
local steps = 0
repeat
  local odd = n % 2 == 1
  if odd then n = 3 * n + 1 else n = n / 2 end
  steps = steps + 1
  local done = n == 1
until done
print("collatz(27) steps", steps)
-- The condition uses a body local that shadows an outer one.
local x = 100
local count = 0
repeat
  local x = count * 10
  count = count + 1
until x >= 30
print("outer x", x, "count", count)
-- Nested repeat with a string accumulator.
local out = ""
local a = 0
repeat
  local b = 0
  repeat
    out = out .. a .. b .. " "
    b = b + 1
  until b > a
  a = a + 1
until a == 3
print(out)
