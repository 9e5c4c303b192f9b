-- Number keys at the edges of the array part's fast test (one truncation, one compare back,
-- one unsigned bounds compare): zeros, fractions, huge and infinite values, NaN reads.
local t = {10, 20, 30}
local keys = {1, 2, 3, 4, 0, -0, -1, 1.5, 2^53, -2^63, 2^63, 1e300, -1e300, 1/0, -1/0, 0/0, 3.0000000001, 2.9999999999}
for _, k in ipairs(keys) do io.write(tostring(t[k]), " ") end print()
for _, k in ipairs(keys) do if k == k then t[k] = "x" end end
for _, k in ipairs(keys) do io.write(tostring(t[k]), " ") end print(#t)
