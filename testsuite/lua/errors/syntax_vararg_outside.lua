-- `...` is only allowed directly inside a vararg function: using it in a nested
-- function that has no `...` parameter is a compile error.
local function outer(...)
  local n = select("#", ...)
  return function()
    return ...
  end
end
print(outer(1, 2))
