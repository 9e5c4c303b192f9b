-- rawget with a missing key argument: 5.1 checks that argument #2 is present.
print(pcall(rawget, {}))
print(pcall(function() return rawget({}) end))
print(pcall(rawget, {}, nil))
