-- A numeric for whose step is a constant compares the index with the limit one way only (the
-- compiler knows the sign); otherwise the step's sign decides at every iteration. Both, for
-- positive, negative, zero, -0, fractional and huge steps, limits that are NaN or infinite,
-- and steps known only at run time.
local function run(label, f)
  local out = {}
  local ok = pcall(f, function(i) out[#out + 1] = tostring(i) if #out > 12 then error("runaway") end end)
  print(label, ok, #out, table.concat(out, " "))
end
run("implicit", function(p) for i = 1, 5 do p(i) end end)
run("+2", function(p) for i = 1, 6, 2 do p(i) end end)
run("-1", function(p) for i = 5, 1, -1 do p(i) end end)
run("-(2)", function(p) for i = 5, 1, -(2) do p(i) end end)
run("0 skip", function(p) for i = 1, 3, 0 do p(i) end end)
run("-0 skip", function(p) for i = 1, 3, -0 do p(i) end end)
run("0.25", function(p) for i = 0, 1, 0.25 do p(i) end end)
run("-0.5", function(p) for i = 1, -1, -0.5 do p(i) end end)
run("huge", function(p) for i = 1, 10, 2^60 do p(i) end end)
run("nan limit", function(p) for i = 1, 0/0 do p(i) end end)
run("nan limit down", function(p) for i = 1, 0/0, -1 do p(i) end end)
run("inf limit", function(p) for i = 1, 1/0, 2^62 do p(i) end end)
run("-inf limit", function(p) for i = 1, -1/0, -2^62 do p(i) end end)
run("empty up", function(p) for i = 3, 1 do p(i) end end)
run("empty down", function(p) for i = 1, 3, -1 do p(i) end end)
for _, step in ipairs({1, -1, 3, -3, 0.5, -0.5}) do
  run("var " .. step, function(p) for i = -3, 3, step do p(i) end end)
  run("var rev " .. step, function(p) for i = 3, -3, step do p(i) end end)
end
local s = "2"
run("string step", function(p) for i = 1, 5, s do p(i) end end)
run("string bounds", function(p) for i = "5", "1", -2 do p(i) end end)
print(pcall(function() for i = 1, 2, {} do end end))
-- the loop variable is a copy: assigning it does not change the iteration
run("copy", function(p) for i = 1, 3 do p(i) i = 10 end end)
