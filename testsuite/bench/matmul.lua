-- Dense matrix multiplication of doubles stored as tables of rows (i-k-j loop order with
-- row locals); prints checksums of the product with fixed decimals.
local N = 180
local ROUNDS = 3

local function matgen(n, seed)
  local m = {}
  local tmp = seed / n / n
  for i = 1, n do
    local row = {}
    for j = 1, n do row[j] = tmp * (i - j) * (i + j - 2) end
    m[i] = row
  end
  return m
end

local function matmul(a, b, n)
  -- transpose b so the inner loop walks two rows
  local bt = {}
  for j = 1, n do
    local col = {}
    for k = 1, n do col[k] = b[k][j] end
    bt[j] = col
  end
  local c = {}
  for i = 1, n do
    local ai, ci = a[i], {}
    for j = 1, n do
      local bj, s = bt[j], 0
      for k = 1, n do s = s + ai[k] * bj[k] end
      ci[j] = s
    end
    c[i] = ci
  end
  return c
end

local function matmul_ikj(a, b, n)
  local c = {}
  for i = 1, n do
    local ci = {}
    for j = 1, n do ci[j] = 0 end
    local ai = a[i]
    for k = 1, n do
      local aik, bk = ai[k], b[k]
      for j = 1, n do ci[j] = ci[j] + aik * bk[j] end
    end
    c[i] = ci
  end
  return c
end

local a = matgen(N, 1.0)
local b = matgen(N, 2.0)
local c, d
for _ = 1, ROUNDS do
  c = matmul(a, b, N)
  d = matmul_ikj(a, b, N)
end
local half = math.floor(N / 2) + 1
print(string.format("c[mid][mid] = %.6f", c[half][half]))
local trace, sum, maxdiff = 0, 0, 0
for i = 1, N do
  trace = trace + c[i][i]
  for j = 1, N do
    sum = sum + c[i][j]
    local diff = math.abs(c[i][j] - d[i][j])
    if diff > maxdiff then maxdiff = diff end
  end
end
print(string.format("trace = %.6f", trace))
print(string.format("sum = %.6f", sum))
print("orders agree", maxdiff < 1e-6)
