-- string.gmatch: iterating words, captures (one, several, position captures), empty
-- matches, '^' (no anchor in 5.1's gmatch: it matches a literal '^'), the iterator used by
-- hand, and argument errors.
for w in string.gmatch("one two  three", "%a+") do io.write("[", w, "]") end print()
for k, v in string.gmatch("a=1, b=2, c=3", "(%w+)=(%w+)") do io.write(k, "->", v, ";") end print()
for p, w in string.gmatch("ab cd", "()(%a+)") do io.write(p, ":", w, " ") end print()
for e in string.gmatch("abc", "") do io.write("<", e, ">") end print()
for e in string.gmatch("abc", "x*") do io.write("<", e, ">") end print()
for d in string.gmatch("a1b22c333", "%d*") do io.write("<", d, ">") end print()
for w in string.gmatch("hello", "^h") do io.write("anchored ", w) end print("|")
for w in string.gmatch("a^hb^h", "^h") do io.write("literal ", w, " ") end print("|")
for w in string.gmatch("^a^b", "%^(%a)") do io.write(w) end print()
local it = string.gmatch("x y z", "%a")
print(type(it), it(), it(), it(), it(), it())
local count = 0
for _ in string.gmatch(string.rep("ab", 100), "ab") do count = count + 1 end
print(count)
for a, b in string.gmatch("k1=v1;k2=v2", "(%w)(%d)") do io.write(a, b, " ") end print()
for q in string.gmatch([["a" "bc" "" "d"]], '"(.-)"') do io.write("(", q, ")") end print()
for n in ("10,20,,30"):gmatch("([^,]*)") do io.write("[", n, "]") end print()
for w in string.gmatch(123.5, "%d+") do io.write(w, " ") end print()
print(pcall(string.gmatch))
print(pcall(string.gmatch, "abc"))
print(pcall(function() for x in string.gmatch("abc", "(") do end end))
print(pcall(function() for x in string.gmatch("abc", "%") do end end))
