-- Comparing with nil (e.g. a misspelt variable) is an error naming both types.
local limit = 10
local value = 5
if value < limit then print("value below limit") end
if value <= limt then print("never") end
