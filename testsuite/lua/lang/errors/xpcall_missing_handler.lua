-- xpcall requires a second argument (luaL_checkany): calling it with only the
-- function is an argument error even if the function would succeed.
print(pcall(xpcall, function() return "ran" end))
print(pcall(function() return xpcall(function() return "ran" end) end))
