-- Long brackets: levels, a first newline that is skipped, embedded brackets and quotes,
-- no escape processing, and line breaks inside.
print([[plain]])
print([[
first newline skipped]])
print([[

only the first newline is skipped]])
print([==[level 2 with ]] and ]=] inside]==])
print([=[quotes " ' and \n stay]=], #[[\n]])
print([[a
b
c]], #[[a
b]])
print([[]] == "", #[[]], [==[]==] == "")
local s = [[x]] .. [=[y]=] .. "z"
print(s, #s)
