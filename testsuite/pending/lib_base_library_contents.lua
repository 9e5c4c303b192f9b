-- PENDING: ljr differs from lua5.1.
-- missing library functions: module, newproxy, table.foreach/foreachi, os.execute/setlocale, io.flush/popen/tmpfile, debug.debug/gethook/getlocal/getregistry/sethook/setlocal; package.loaded lacks the library tables.
-- Expected (lua5.1):
--   assert=function collectgarbage=function dofile=function error=function getfenv=function getmetatable=function ipairs=function load=function loadfile=function loadstring=function next=function pairs=function pcall=function print=function rawequal=function rawget=function rawset=function select=function setfenv=function setmetatable=function tonumber=function tostring=function type=function unpack=function xpcall=function gcinfo=function module=function require=function newproxy=function
--   string=table table=table math=table io=table os=table coroutine=table debug=table package=table
--   true	true	true
--   string	15 byte,char,dump,find,format,gfind,gmatch,gsub,len,lower,match,rep,reverse,sub,upper
--   table	9 concat,foreach,foreachi,getn,insert,maxn,remove,setn,sort
--   math	29 abs,acos,asin,atan,atan2,ceil,cos,cosh,deg,exp,floor,fmod,frexp,ldexp,log,log10,max,min,mod,modf,pow,rad,random,randomseed,sin,sinh,sqrt,tan,tanh
--   os	11 clock,date,difftime,execute,exit,getenv,remove,rename,setlocale,time,tmpname
--   io	11 close,flush,input,lines,open,output,popen,read,tmpfile,type,write
--   coroutine	6 create,resume,running,status,wrap,yield
--   debug	14 debug,getfenv,gethook,getinfo,getlocal,getmetatable,getregistry,getupvalue,setfenv,sethook,setlocal,setmetatable,setupvalue,traceback
-- Actual (ljr):
--   assert=function collectgarbage=function dofile=function error=function getfenv=function getmetatable=function ipairs=function load=function loadfile=function loadstring=function next=function pairs=function pcall=function print=function rawequal=function rawget=function rawset=function select=function setfenv=function setmetatable=function tonumber=function tostring=function type=function unpack=function xpcall=function gcinfo=function module=nil require=function newproxy=nil
--   string=table table=table math=table io=table os=table coroutine=table debug=table package=table
--   false	false	false
--   string	15 byte,char,dump,find,format,gfind,gmatch,gsub,len,lower,match,rep,reverse,sub,upper
--   table	7 concat,getn,insert,maxn,remove,setn,sort
--   math	29 abs,acos,asin,atan,atan2,ceil,cos,cosh,deg,exp,floor,fmod,frexp,ldexp,log,log10,max,min,mod,modf,pow,rad,random,randomseed,sin,sinh,sqrt,tan,tanh
--   os	9 clock,date,difftime,exit,getenv,remove,rename,time,tmpname
--   io	8 close,input,lines,open,output,read,type,write
--   coroutine	6 create,resume,running,status,wrap,yield
--   debug	8 getfenv,getinfo,getmetatable,getupvalue,setfenv,setmetatable,setupvalue,traceback
-- The full contents of 5.1's standard library: every base function (including module and
-- newproxy), the function names of each library table, and package.loaded entries.
local names = {}
for _, n in ipairs({"assert", "collectgarbage", "dofile", "error", "getfenv", "getmetatable",
    "ipairs", "load", "loadfile", "loadstring", "next", "pairs", "pcall", "print", "rawequal",
    "rawget", "rawset", "select", "setfenv", "setmetatable", "tonumber", "tostring", "type",
    "unpack", "xpcall", "gcinfo", "module", "require", "newproxy"}) do
  names[#names + 1] = n .. "=" .. type(_G[n])
end
print(table.concat(names, " "))
local libs = {}
for _, n in ipairs({"string", "table", "math", "io", "os", "coroutine", "debug", "package"}) do
  libs[#libs + 1] = n .. "=" .. type(_G[n])
end
print(table.concat(libs, " "))
print(package.loaded.string == string, package.loaded._G == _G, package.loaded.math == math)
-- Counting the functions of each library (5.1's sets).
local function count(t)
  local fns = {}
  for k, v in pairs(t) do if type(v) == "function" then fns[#fns + 1] = k end end
  table.sort(fns)
  return #fns .. " " .. table.concat(fns, ",")
end
print("string", count(string))
print("table", count(table))
print("math", count(math))
print("os", count(os))
print("io", count(io))
print("coroutine", count(coroutine))
print("debug", count(debug))
