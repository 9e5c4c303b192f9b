-- Numeric for bounds computed with scratch slots (arithmetic on upvalues): the loop
-- variable must still sit right after the three control slots.
local up = "abcd"
local k = 1
local function g()
  print(#up - k + 1, 5, #up - k, "x")
  local t = {#up - k + 1, #up * 2, 3}
  print(t[1], t[2], t[3], #t)
  local a, b, c = #up - k, #up + k, 7
  print(a, b, c)
  for i = #up - k, #up - k + 1, #up - 3 do print("i", i) end
  return #up - k, #up + 1
end
print(g())
print(select('#', g()))
