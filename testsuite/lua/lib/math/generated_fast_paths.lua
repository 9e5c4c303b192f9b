-- math.ceil, math.sqrt, math.abs, math.max and math.min as generated code (numbers) with their
-- native twins behind them (numeric strings, bad arguments): every result must be lua5.1's,
-- zeros' signs and NaNs included.
local function show(x)
  if x ~= x then return "nan" end
  if x == 0 then return (1 / x > 0) and "0" or "-0" end
  return string.format("%.17g", x)
end
local zero = 0
local nz = -zero
local values = { 0, nz, 0.5, -0.5, 1, -1, 2.5, -2.5, 1e15 + 0.5, -1e15 - 0.5, 2^52, -2^52, 2^53 + 2,
  1e300, -1e300, 1/0, -1/0, 0/0, 4503599627370495.5, -4503599627370495.5, 1e-300, -1e-300, 2^-1074, 2, 16, 1e-20 }
for _, v in ipairs(values) do
  print(show(v), show(math.ceil(v)), show(math.sqrt(v)), show(math.abs(v)), show(math.max(v)), show(math.min(v)),
    show(math.max(v, 1)), show(math.min(v, 1)), show(math.max(1, v)), show(math.min(1, v)),
    show(math.max(v, nz, 0)), show(math.min(0, v, nz)), show(math.max(v, 0/0)), show(math.min(0/0, v)))
end
-- Many arguments, the extreme anywhere among them.
print(math.max(3, 9, -2, 9.5, 1), math.min(3, 9, -2, 9.5, 1), math.max(-1, -2, -3), math.min(5, 4, 3, 2, 1, 0))
-- Extra arguments of the one-argument functions are ignored.
print(math.sqrt(16, "x"), math.abs(-3, {}), math.ceil(1.2, nil))
-- Numeric strings convert (the twin), anywhere among max's arguments.
print(math.ceil("3.2"), math.sqrt(" 9 "), math.abs("-7"), math.max(1, "5", 3), math.min("2", 1), math.max("0x10", 3))
-- Errors, worded as 5.1 words them.
for _, f in ipairs({ "ceil", "sqrt", "abs", "max", "min" }) do
  print(f, pcall(math[f]))
  print(f, pcall(math[f], "x"))
  print(f, pcall(math[f], {}))
  print(f, pcall(math[f], nil))
end
print(pcall(math.max, 1, 2, nil))
print(pcall(math.min, 1, "two"))
print(pcall(math.max, 1, 2, 3, {}, 5))
-- In loops (the JIT's code for the calls).
local sqrt, abs, max, min, ceil = math.sqrt, math.abs, math.max, math.min, math.ceil
local s = 0
for i = 1, 2000 do
  s = s + sqrt(i) + abs(i - 1000) + max(i, 1000, i * 0.5) - min(i, 500) + ceil(i / 3)
end
print(string.format("%.10f", s))
-- Called by name, the error names the function.
print(pcall(function() return math.sqrt("x") end))
print(pcall(function() return math.max(1, {}) end))
print(pcall(function() local abs = math.abs return abs(nil) end))
