-- print: any number of arguments separated by tabs, a newline at the end, nil and
-- booleans by name, and print() as an empty line.
print()
print(nil)
print(true, false)
print(1, "two", 3.5, nil, true)
print(nil, nil, nil)
print("", "", "")
print("a", "", "b")
print("x\ty")
local n
print(n, n == nil)
print("last argument nil", nil)
-- Expressions as arguments are evaluated left to right before printing.
local a = 1
print(a, a + 1, a * 10, "s" .. a)
