-- Calling an undefined global function.
function defined() return "defined" end
print(defined())
print(undefined_function(1, 2))
