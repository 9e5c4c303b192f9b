-- string.format integer conversions %d %i %u %c %x %X %o with flags (- + space # 0),
-- widths and precisions, negative numbers, fractional arguments (truncated), numeric
-- strings as arguments, and large values.
local function f(fmt, ...) print(fmt, "[" .. string.format(fmt, ...) .. "]") end
f("%d", 42) f("%d", -42) f("%d", 0) f("%d", 3.99) f("%d", -3.99) f("%d", "17")
f("%i", 42) f("%i", -7) f("%5i", 3)
f("%5d", 42) f("%-5d", 42) f("%05d", 42) f("%+d", 42) f("%+d", -42) f("% d", 42) f("% d", -42)
f("%+05d", 42) f("%-+5d", 42) f("%.3d", 7) f("%8.3d", 7) f("%-8.3d|", -7) f("%.0d", 0)
f("%u", 42) f("%u", 3000000000) f("%10u", 5)
f("%c", 65) f("%c%c%c", 76, 117, 97) f("%5c", 66) f("%-5c|", 67)
f("%x", 255) f("%X", 255) f("%#x", 255) f("%#X", 255) f("%08x", 48879) f("%-8x|", 48879)
f("%x", 0) f("%#x", 0) f("%.4x", 15) f("%x", 4294967295)
f("%o", 8) f("%#o", 8) f("%o", 0) f("%#o", 0) f("%5o", 64) f("%-5o|", 64)
f("%d", 2^31) f("%d", -2^31) f("%d", 2^40) f("%d", 1e15) f("%x", 2^40)
f("%d %i %u", 1, 2, 3)
f("%3d|%-3d|%03d", 1, 2, 3)
f("%d", "0x10") f("%x", "  12  ")
f("%20d|", 123456789) f("%-20d|", -123456789)
