-- os.exit() without arguments exits with EXIT_SUCCESS, also from inside nested calls and a
-- pcall (it is not an error that pcall could catch).
print("start")
local function deep(n)
  if n == 0 then os.exit() end
  return deep(n - 1)
end
print(pcall(function()
  print("inside pcall")
  deep(5)
end))
print("not reached")
