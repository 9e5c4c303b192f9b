-- A JSON encoder and decoder round trip: string building, gsub/format/find, recursion.
local function encode(v, out)
  local t = type(v)
  if t == "table" then
    if #v > 0 then
      out[#out + 1] = "["
      for i = 1, #v do if i > 1 then out[#out + 1] = "," end encode(v[i], out) end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = string.format("%q", k):gsub("\\\n", "\\n") .. ":"
        encode(v[k], out)
      end
      out[#out + 1] = "}"
    end
  elseif t == "string" then
    out[#out + 1] = '"' .. v:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
  elseif t == "number" then
    out[#out + 1] = string.format("%.14g", v)
  else
    out[#out + 1] = tostring(v)
  end
end
local function decode(s)
  local pos = 1
  local value
  local function ws() pos = s:find("[^ \n\r\t]", pos) or #s + 1 end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1 ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1 return t end
      while true do
        local k = value() ws()
        pos = pos + 1
        t[k] = value() ws()
        local d = s:sub(pos, pos) pos = pos + 1
        if d == "}" then return t end
      end
    elseif c == "[" then
      local t = {}
      pos = pos + 1 ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1 return t end
      while true do
        t[#t + 1] = value() ws()
        local d = s:sub(pos, pos) pos = pos + 1
        if d == "]" then return t end
      end
    elseif c == '"' then
      local e = s:find('"', pos + 1, true)
      local str = s:sub(pos + 1, e - 1):gsub("\\u(%x%x%x%x)", function(h) return string.char(tonumber(h, 16)) end)
      pos = e + 1
      return str
    elseif s:find("^true", pos) then pos = pos + 4 return true
    elseif s:find("^false", pos) then pos = pos + 5 return false
    elseif s:find("^null", pos) then pos = pos + 4 return nil
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      pos = pos + #num
      return tonumber(num)
    end
  end
  return value()
end
local doc = {}
for i = 1, 200 do
  doc[i] = { id = i, name = "item\t" .. i, tags = { "a", "b", tostring(i % 7) }, price = i * 1.25, ok = i % 2 == 0 }
end
local total = 0
for _ = 1, 300 do
  local out = {}
  encode(doc, out)
  local text = table.concat(out)
  local back = decode(text)
  total = total + #text + #back + back[200].price
end
print("json round trips", total)
