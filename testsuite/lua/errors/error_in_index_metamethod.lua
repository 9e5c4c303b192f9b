-- An error raised inside an __index function is located in the metamethod.
local strict = setmetatable({known = 1}, {
  __index = function(t, key)
    error("unknown key '" .. tostring(key) .. "'")
  end,
})
print(strict.known)
print(strict.unknown)
