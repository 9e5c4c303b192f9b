-- NaN's sign where it is defined: operations on one NaN keep or flip its sign, as on the
-- hardware lua5.1 runs on (0/0 is the default NaN, negative on x86).
local nan = 0/0
print(nan, -nan, -(-nan))
print(tonumber("-nan"), tonumber("nan"), -"-nan", -"nan", "-nan" + 0)
print(nan + 1, 1 + nan, nan * 2, (-nan) * 2, (-nan) - 1, nan % 3, (-nan) ^ 1)
print(nan == nan, nan ~= nan, nan < nan, math.floor(-nan), math.abs(nan))
print(string.format("%.3f %g", nan, -nan), tostring(-nan))
