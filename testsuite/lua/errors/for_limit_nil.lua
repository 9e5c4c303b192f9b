-- A numeric for needs numbers (or numeric strings) for start, limit and step.
for i = 1, 2 do print("ok", i) end
local limit
for i = 1, limit do print("never") end
