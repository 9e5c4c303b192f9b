-- string.format of numbers outside the integer range: the C casts lua5.1 makes on x86-64.
for _, v in ipairs({1/0, -1/0, 0/0, 1e300, 2^63, 2^64, -1, -2^63, 1e19}) do print(v, string.format("%x %o %d %u", v, v, v, v)) end
