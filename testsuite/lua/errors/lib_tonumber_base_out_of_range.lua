-- tonumber with base 1: "bad argument #2 to 'tonumber' (base out of range)".
for _, base in ipairs({2, 16, 36, 1}) do
  print(base, tonumber("11", base))
end
