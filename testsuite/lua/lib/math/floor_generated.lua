-- math.floor as generated code: integers, fractions of both signs, -0, huge values,
-- infinities, NaN, numeric strings and bad arguments (the native twin), extra arguments.
local values = { 0, -0, 0.5, -0.5, 1, -1, 2.5, -2.5, 1e15 + 0.5, -1e15 - 0.5, 2^52, -2^52, 2^53 + 2,
  2^63, -2^63, 1e300, -1e300, 1/0, -1/0, 4503599627370495.5, -4503599627370495.5, 1e-300, -1e-300 }
for _, v in ipairs(values) do
  local f = math.floor(v)
  print(string.format("%.17g", v), string.format("%.17g", f), 1 / f == 1 / v and "same-sign" or "", f == v)
end
local nan = math.floor(0/0)
print(nan ~= nan)
print(math.floor("3.7"), math.floor(" -3.2 "), math.floor(7.9, "ignored", {}))
print(pcall(math.floor))
print(pcall(math.floor, "x"))
print(pcall(math.floor, {}))
print(pcall(math.floor, nil))
local floor, s = math.floor, 0
for i = 1, 1000 do s = s + floor(i / 7) - floor(-i / 3) end
print(s)
