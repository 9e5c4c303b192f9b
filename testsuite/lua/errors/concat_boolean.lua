-- Concatenating a boolean: only strings and numbers concatenate.
print("a" .. 1 .. 2.5)
print("a" .. false)
