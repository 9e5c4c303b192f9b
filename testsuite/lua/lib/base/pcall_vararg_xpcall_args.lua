-- pcall returning a vararg function's results (all of them, nils included), and xpcall's
-- argument check: with no arguments 5.1 complains about #2 (the handler) first.
print(pcall(function(...) return ... end, 1, nil, 3))
print(select("#", pcall(function(...) return ... end, nil, nil)))
print(pcall(xpcall))
print(pcall(xpcall, print))
