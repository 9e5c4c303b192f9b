-- An error three calls deep: the message carries the line of the failing expression in
-- the innermost function, and output printed before it is kept.
function level3(x)
  print("level3", x)
  return x * undefined_factor
end
function level2(x)
  print("level2", x)
  return level3(x) + 1
end
function level1(x)
  print("level1", x)
  local r = level2(x)
  return r
end
print(level1(7))
