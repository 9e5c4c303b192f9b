-- Searches that skip ahead to where a match can start (find, gmatch, gsub with a pattern
-- that begins with a class that must match once), over every class, negated classes, sets
-- with ranges and escapes, and patterns that may match empty (which must not skip).
local text = "  x1 = {abc, 42}; -- [[note]]\n\tEND 7e3 ^$ %d \0zero\127 caf\233 A-Z_9 ]]"
local classes = { "%a", "%c", "%d", "%l", "%p", "%s", "%u", "%w", "%x", "%z",
  "%A", "%C", "%D", "%L", "%P", "%S", "%U", "%W", "%X", "%Z",
  ".", "x", "%]", "%%", "%$", "[%a_]", "[^%s%d]", "[a-c%d]", "[z-a]", "[]]", "[^]]",
  "[%]%[]", "[a-]", "[-a]", "[\128-\255]", "[^\n]", "[%^]", "[^%w]" }
local quantifiers = { "", "+", "*", "-", "?" }
local lines = {}
for _, c in ipairs(classes) do
  for _, q in ipairs(quantifiers) do
    local p = c .. q
    local found = {}
    local init = 1
    while init <= #text + 1 and #found < 40 do
      local s, e = string.find(text, p, init)
      if not s then break end
      found[#found + 1] = s .. "-" .. e
      init = s + 1
    end
    local words = {}
    for w in string.gmatch(text, p) do
      words[#words + 1] = string.format("%q", w)
      if #words > 40 then break end
    end
    local replaced, n = string.gsub(text, p, "<%0>")
    local limited, m = string.gsub(text, p, "#", 2)
    lines[#lines + 1] = string.format("%-10s find %s | gmatch %s | gsub %d %q | %d %q", p,
      table.concat(found, ","), table.concat(words, ","), n, replaced, m, limited)
  end
end
-- Patterns after the first item, captures, anchors, back-references and balances.
for _, p in ipairs({ "%d+%.?%d*", "(%a+)%s*=", "%a+()", "^%s+", "%s+$", "(%d)%1", "%b[]", "%f[%a]%a+",
  "[%a_][%w_]*", "%-%-[^\n]*", "e%d", "()x", "%s%s+", "^" }) do
  local caps = {}
  for a, b in string.gmatch(text, p) do caps[#caps + 1] = tostring(a) .. "/" .. tostring(b) end
  print(p, table.concat(caps, " "), (string.gsub(text, p, "_")))
end
for _, l in ipairs(lines) do print(l) end
-- Long subjects: a scan that finds nothing, and one match at the very end.
local long = string.rep("ab ", 20000)
print(string.find(long, "%d"), string.find(long .. "7", "%d+"), select(2, string.gsub(long, "%a+", "")))
local count = 0
for _ in string.gmatch(long, "[^ ]+") do count = count + 1 end
print(count)
