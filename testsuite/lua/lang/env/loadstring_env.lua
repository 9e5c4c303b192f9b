-- loadstring: compiles a chunk whose environment is the global one; setfenv gives it
-- another; chunks are vararg functions; syntax errors come back as (nil, message); the
-- chunk name appears in messages.
local f = loadstring("return 1 + 1")
print(f())
local g = loadstring("x = (x or 0) + 1 return x")
print(g(), g(), x)
local env = {x = 100}
setfenv(g, env)
print(g(), env.x, x)
-- A chunk defining functions that use its environment.
local chunk = loadstring([[
  function hello() return "hello from " .. where end
  where = "sandbox"
]])
local sb = {}
setfenv(chunk, sb)
chunk()
print(sb.hello(), rawget(_G, "hello"))
-- Syntax errors.
print(loadstring("x = = 1"))
print(loadstring("return +"))
print(loadstring("for i = 1 do end"))
print(loadstring("local 1 = 2"))
print(loadstring("x = 'unterminated"))
print(loadstring("f("))
print(loadstring("return 1 end"))
print(loadstring("break"))
-- Chunk names.
print(loadstring("x = = 1", "mychunk"))
print(loadstring("x = = 1", "=custom"))
print(loadstring("x = = 1", "@file.lua"))
local bad = loadstring("error('runtime in chunk')", "=named")
print(pcall(bad))
local bad2 = loadstring("local t = nil\nreturn t.x")
print(pcall(bad2))
-- An empty chunk.
print(loadstring("")())
print(select("#", loadstring("")()))
-- Arguments to the chunk.
print(loadstring("local a, b = ... return b, a")(1, 2))
-- Long chunk source in the name is truncated in messages.
print(pcall(loadstring("error('x')" .. string.rep(" ", 100))))
print(pcall(loadstring("error('x') --" .. string.rep("y", 100))))
-- Multi-line chunks report the right line.
print(pcall(loadstring("local a = 1\nlocal b = 2\nreturn a + nil")))
