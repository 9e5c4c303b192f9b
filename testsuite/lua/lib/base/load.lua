-- load with a reader function: pieces are concatenated, nil or "" ends the chunk, a
-- non-string piece is an error, the chunk name appears in messages, syntax errors return
-- nil plus the message, and the loaded chunk gets varargs.
local function reader(pieces)
  local i = 0
  return function()
    i = i + 1
    return pieces[i]
  end
end
local f = load(reader({"return ", "1 + ", "2", ", ..."}))
print(type(f), f("va", "rg"))
f = load(reader({"local x = 'spl", "it across pieces' return x"}))
print(f())
-- An empty string ends the chunk like nil does.
f = load(reader({"return 'before'", "", "error('not read')"}))
print(f())
-- A reader returning nil immediately gives an empty chunk.
f = load(function() return nil end)
print(type(f), select("#", f()))
-- Syntax errors: nil and a message naming the chunk.
print(load(reader({"return +"}), "mychunk"))
print(load(reader({"x = = 1"})))
print(load(reader({"x = ", "1", " y"}), "=custom"))
print(type(load(reader({"return 1"}), "@file.lua")))
print(pcall(load(reader({"error('runtime')"}), "=named")))
print(pcall(load(reader({"\n\nerror('line3')"}), "@virtual.lua")))
-- load requires a function.
print(pcall(load))
print(pcall(load, "return 1"))
-- The chunk's environment is the global table.
f = load(reader({"return _G"}))
print(f() == _G)
-- A reader called many times with one character each.
local src = "local s = 0 for i = 1, 10 do s = s + i end return s"
local pos = 0
f = load(function() pos = pos + 1 if pos <= #src then return src:sub(pos, pos) end end)
print(f(), pos)
