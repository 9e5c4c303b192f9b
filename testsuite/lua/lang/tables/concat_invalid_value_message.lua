-- table.concat with a table and a boolean element.
print(pcall(table.concat, {1, {}, 3}))
print(pcall(table.concat, {true}, ","))
