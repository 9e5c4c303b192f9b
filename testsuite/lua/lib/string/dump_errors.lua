-- string.dump of a C function fails with "unable to dump given function".
print(pcall(string.dump, print))
print(pcall(function() return string.dump(string.len) end))
