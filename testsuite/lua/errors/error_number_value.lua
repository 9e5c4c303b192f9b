-- An uncaught error whose value is a number: at level 1 the number gets the position
-- prefix like a string message.
local attempts = 0
local function retry()
  attempts = attempts + 1
  print("attempt", attempts)
  if attempts == 3 then error(404) end
  return retry()
end
retry()
