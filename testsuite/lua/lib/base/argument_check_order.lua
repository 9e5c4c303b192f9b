-- Which argument a library function checks first decides its message when several are wrong:
-- math.pow, fmod, atan2 and ldexp (and os.difftime) check their second argument first (5.1's
-- C passes both checks as a call's arguments, evaluated right to left by the reference build),
-- table.concat its separator before its table, tonumber its base before its value (and a
-- non-10 base's value before the base's range). And math.modf's fraction has the sign of x.
for _, c in ipairs({
  function() return math.pow() end, function() return math.pow(nil, 2) end, function() return math.pow(2) end,
  function() return math.fmod() end, function() return math.fmod("x", {}) end, function() return math.atan2() end,
  function() return math.ldexp() end, function() return math.ldexp(1, "y") end, function() return math.ldexp({}, 2) end,
  function() return table.concat(1, false) end, function() return table.concat({}, {}) end, function() return table.concat(5) end,
  function() return tonumber({}, 99) end, function() return tonumber(nil, 99) end, function() return tonumber("z", 36) end,
  function() return tonumber() end, function() return tonumber("10", "x") end, function() return os.difftime() end,
  function() return os.difftime({}, "x") end, function() return math.modf(-3) end, function() return math.modf(3) end,
  function() return math.modf(-0.5) end, function() return math.modf(-1/0) end, function() return math.modf(0/0) end,
}) do print(pcall(c)) end
