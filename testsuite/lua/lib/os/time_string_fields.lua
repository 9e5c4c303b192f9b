-- os.time accepts numeric strings in the date table's fields (5.1 reads them with
-- lua_isnumber/lua_tointeger), like numbers.
local a = os.time{year = "2010", month = "6", day = "15", hour = "8"}
local b = os.time{year = 2010, month = 6, day = 15, hour = 8}
print(a == b)
print(os.date("%Y-%m-%d %H:%M:%S", os.time{year = 2010, month = 6, day = 15, hour = 8, min = "30", sec = " 5 "}))
print(os.time{year = 2000, month = 1, day = "0x2", hour = 12} - os.time{year = 2000, month = 1, day = 1, hour = 12})
