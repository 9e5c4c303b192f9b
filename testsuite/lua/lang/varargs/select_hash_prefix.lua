-- select only looks at the first character of a string index in 5.1: any string
-- starting with '#' counts the arguments.
print(pcall(select, "#x", 1, 2))
print(select("#count", "a", "b"), select("##"))
