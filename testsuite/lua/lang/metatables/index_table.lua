-- __index as a table: lookups of absent keys go to the __index table, chains of
-- prototypes are followed, present keys (even false) shadow the prototype, and
-- rawget bypasses the chain.
local base = {greet = "hello", shared = "base", n = 1}
local mid = setmetatable({shared = "mid"}, {__index = base})
local obj = setmetatable({own = "own"}, {__index = mid})
print(obj.own, obj.shared, obj.greet, obj.missing)
print(rawget(obj, "shared"), rawget(obj, "greet"), rawget(mid, "shared"))
-- false is a present value and stops the lookup.
obj.greet = false
print(obj.greet, mid.greet)
obj.greet = nil
print(obj.greet)
-- Writing goes to the object, not the prototype (no __newindex).
obj.n = obj.n + 1
print(obj.n, base.n, rawget(obj, "n"))
-- Numeric keys through __index.
local arr = setmetatable({}, {__index = {10, 20, 30}})
print(arr[1], arr[2], arr[3], arr[4], #arr)
-- Changing the prototype is seen immediately.
base.late = "late"
print(obj.late)
-- Replacing the metatable's __index field changes behaviour.
local mt = {__index = {v = "first"}}
local x = setmetatable({}, mt)
print(x.v)
mt.__index = {v = "second"}
print(x.v)
mt.__index = nil
print(x.v)
-- A long chain.
local proto = {depth = 0}
local cur = proto
for i = 1, 50 do cur = setmetatable({}, {__index = cur}) end
print(cur.depth)
-- Classes with methods through __index.
local Account = {}
Account.__index = Account
function Account.new(balance) return setmetatable({balance = balance}, Account) end
function Account:deposit(v) self.balance = self.balance + v return self end
function Account:get() return self.balance end
local acc = Account.new(100)
print(acc:deposit(50):deposit(25):get(), rawget(acc, "deposit"))
-- Inheritance.
local Special = setmetatable({}, {__index = Account})
Special.__index = Special
function Special.new(b) return setmetatable({balance = b, limit = 10}, Special) end
function Special:get() return "special " .. Account.get(self) end
local sp = Special.new(5)
print(sp:deposit(1):get(), sp.limit)
-- getmetatable returns the metatable.
print(getmetatable(acc) == Account, getmetatable(sp) == Special, getmetatable({}))
