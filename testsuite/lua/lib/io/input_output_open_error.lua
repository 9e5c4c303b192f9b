-- io.input/io.output with a file that cannot be opened raise a bad argument #1 error whose
-- text is the open failure: "bad argument #1 to 'input' (NAME: No such file or directory)".
local name = os.tmpname()
os.remove(name)
local ok, e = pcall(io.input, name .. ".missing")
print(ok, (string.gsub(e, name, "TMP")))
print(pcall(io.output, "/nonexistent-dir-ljr/x"))
print(pcall(function() io.input("/nonexistent-dir-ljr/y") end))
