-- inf, -inf, nan and negative zero as lua5.1 prints them on x86-64. The sign of a NaN is
-- visible: 0/0 yields the "default NaN" (sign bit set, printed "-nan") and negating it
-- clears the sign ("nan"). Negative zero is produced at run time on purpose: lua5.1 keeps
-- numeric constants in a per-function table where -0 and 0 are the same key, so a literal
-- -0 next to a literal 0 would print as whichever came first.
local zero = 0
local one = 1
local inf = one / zero
local ninf = -one / zero
local nan = zero / zero
print("inf", inf, ninf, -inf, inf + 1, inf * 2, inf / 2)
print("inf-arith", inf + ninf, inf - inf, inf * zero, inf / inf)
print("nan", nan, -nan, nan + 1, nan * 0, -nan + 1)
print("nan-compare", nan == nan, nan ~= nan, nan < nan, nan > 1, nan <= nan, 1 < nan)
print("inf-compare", inf == inf, inf > 1e308, ninf < -1e308, inf == -ninf)
local nz = -zero
print("negzero", nz, zero, nz == zero, nz * 1, nz + zero, zero * -1)
print("negzero-ops", one / nz, nz / one, nz * nz, -nz, nz - zero, zero - zero)
print("concat", "" .. inf, "" .. ninf, "" .. nan, "" .. nz)
print("big-overflow", 1e308 * 10, -1e308 * 10, 1e308 + 1e308)
local tiny, huge = 1e-308, 1e100
print("underflow", tiny / huge, -tiny / huge, tiny * -tiny, 2^-1074 / 2)
