-- Character classes %a %c %d %l %p %s %u %w %x %z and their complements, plus '.',
-- checked against every byte 0..255: each class prints the byte ranges it matches.
local function ranges(pat)
  local out, start = {}, nil
  for i = 0, 256 do
    local hit = i < 256 and string.find(string.char(i), "^" .. pat .. "$") ~= nil
    if hit and not start then start = i end
    if not hit and start then
      out[#out + 1] = start == i - 1 and tostring(start) or (start .. "-" .. (i - 1))
      start = nil
    end
  end
  return table.concat(out, ",")
end
for _, c in ipairs({"a", "c", "d", "l", "p", "s", "u", "w", "x", "z"}) do
  print("%" .. c, ranges("%" .. c))
  print("%" .. c:upper(), ranges("%" .. c:upper()))
end
print(".", ranges("."))
-- Escaped non-alphanumeric characters stand for themselves.
for _, c in ipairs({"%.", "%%", "%(", "%)", "%[", "%]", "%*", "%+", "%-", "%?", "%^", "%$", "%/"}) do
  io.write(c, "=", ranges(c), " ")
end
print()
-- Classes inside sets and counts over a mixed string.
local s = "Hello, World! 123\t\n\0end"
for _, c in ipairs({"%a", "%d", "%s", "%p", "%c", "%u", "%l", "%w", "%x", "%z"}) do
  local _, n = string.gsub(s, c, "")
  io.write(c, ":", n, " ")
end
print()
