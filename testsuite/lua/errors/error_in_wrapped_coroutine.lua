-- A runtime error inside a coroutine driven by coroutine.wrap propagates out of the
-- call to the wrapper: the coroutine's own located message, prefixed with the position
-- of the call to the wrapper.
local gen = coroutine.wrap(function()
  for i = 1, 3 do coroutine.yield(i) end
  local missing
  return missing.field
end)
print(gen())
print(gen())
print(gen())
print(gen())
