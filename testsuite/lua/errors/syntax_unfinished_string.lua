-- A short string cannot span lines without a backslash.
print("fine")
print("unfinished
")
