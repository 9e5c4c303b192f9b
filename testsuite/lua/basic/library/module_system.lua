-- module(), package.seeall and require of dotted names: the module table is package.loaded's
-- and a global, with _M, _NAME and _PACKAGE, and it becomes the module code's environment.
-- (The modules live in modsys/*.luamod so the corpus does not run them as tests.)
package.path = "./modsys/?.luamod"
local m = require("mymod")
print(m.get())
print(mymod == m, package.loaded.mymod == m, type(mymod.print))
local ab = require("a.b")
print(a.b == ab, ab._NAME, ab._PACKAGE, ab.x, ab.print)
print(pcall(module))
local t = {} package.seeall(t) print(t.print == print)
