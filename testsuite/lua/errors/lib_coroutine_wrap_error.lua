-- An error inside a coroutine.wrap generator propagates to the caller, which 5.1 prefixes
-- with the caller's position too: "f.lua:N: f.lua:M: message".
local gen = coroutine.wrap(function()
  coroutine.yield(1)
  coroutine.yield(2)
  error("generator exhausted")
end)
print(gen())
print(gen())
print(gen())
