-- print calls __tostring; an error raised inside it is located in the metamethod.
local obj = setmetatable({}, {__tostring = function(self)
  return "obj#" .. self.id
end})
print("before")
print(obj)
