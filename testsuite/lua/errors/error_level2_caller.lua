-- error with level 2 blames the caller: the message carries the line of the call to
-- the checking function, not the line of the error call.
local function check_name(name)
  if type(name) ~= "string" then
    error("name must be a string, got " .. type(name), 2)
  end
  return name
end
print(check_name("ok"))
local function register(n)
  local checked = check_name(n)
  return checked
end
print(register("fine"))
print(register(42))
