-- Library functions convert number arguments to integers as their 5.1 counterparts do:
-- luaL_checkint keeps the low 32 bits of C's (long) conversion (so 2^32 is 0 and 1e15 is
-- negative), luaL_checkinteger keeps all 64, and NaN or out-of-range values become the x86
-- "integer indefinite". Each result is printed per argument.
local values = {1/0, -1/0, 0/0, 2^31, 2^32, -2^31, 2^63, 1e15, -1e15, 2^53, 3.7, -3.7, 0, -0.5}
local function show(...)
  local out = {}
  for i = 1, select('#', ...) do out[i] = tostring((select(i, ...))) end
  return table.concat(out, ' ')
end
for _, x in ipairs(values) do
  print(x, 'select', show(pcall(select, x, 'a', 'b')))
  print(x, 'sub', show(pcall(string.sub, 'hello', x)), show(pcall(string.sub, 'hello', 2, x)))
  print(x, 'byte', show(pcall(string.byte, 'hello', x)), show(pcall(string.byte, 'hello', 1, x)))
  print(x, 'char', show(pcall(string.char, x)))
  print(x, 'find', show(pcall(string.find, 'hello', 'l', x)))
  print(x, 'concat', show(pcall(table.concat, {1, 2, 3}, ',', x, 2)))
  print(x, 'tonumber', show(pcall(tonumber, '10', x)))
  print(x, 'difftime', show(pcall(os.difftime, x)))
  print(x, 'ldexp', show(pcall(math.ldexp, 1, x)))
end
for _, x in ipairs({2^32, 2^32 + 3, 1/0, 0/0, -2^31, 3.9}) do
  print(x, 'rep', show(pcall(string.rep, 'ab', x)))
end
print(os.difftime(1.5), os.difftime(5, 2.5))
print(select(-1, 'a', 'b'), select(2^32 + 1, 'a', 'b'))
print(pcall(error, 'level', 2^32 + 1))
