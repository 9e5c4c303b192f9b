-- break is only valid inside a loop.
local x = 1
if x then
  break
end
