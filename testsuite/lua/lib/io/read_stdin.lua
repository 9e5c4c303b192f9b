-- io.read from stdin with every format: "*l" (default), "*n" (numbers in several forms,
-- leaving the rest of the line), a byte count, 0 (a probe), several formats in one call,
-- "*a", and reading at end of file (nil for "*l", "*n" and counts; "" for "*a").
-- ljr-test: stdin=read_stdin.txt
print(io.read())
print(io.read("*l"))
print(io.read("*n", "*n", "*n"))
print(io.read("*l"))
print(io.read("*n"), io.read("*n"))
print("[" .. io.read("*l") .. "]")
print(io.read(3), io.read(0), io.read(2))
print(io.read("*l"))
print("[" .. io.read("*l") .. "]")
print(io.read(4), io.read("*a"))
print(io.read("*l"), io.read("*n"), io.read(1), io.read(0))
print("[" .. io.read("*a") .. "]", io.read("*a") == "")
print(io.read("*l", "*l"))
print(pcall(io.read, "*x"))
