-- Table constructors store through 5.1's SETLIST: nils in the list occupy array slots, so the
-- length counts them as 5.1 does; keyed entries for positions the list covers are overwritten.
print(#{nil, 2}, #{1, nil}, #{nil, nil, 3}, #{1, 2, nil, 4})
local function f() return 1, nil, 3 end
print(#{f()}, #{f(), f()}, select('#', unpack({f()})))
local t = {[3] = "h3", [2] = "h2", "a1"} print(t[1], t[2], t[3], #t)
local u = {[1] = "x", "y"} print(u[1], #u)
local big = {} for i = 1, 300 do big[#big + 1] = i end print(#big)
local v = {n = 1, 10, 20, [4] = 40, 30} print(#v, v[4])
