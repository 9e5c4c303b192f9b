-- Heapsort of pseudo-random numbers from an in-program LCG: array-heavy, comparisons.
local seed = 42
local function rand(max)
  seed = (seed * 3877 + 29573) % 139968
  return max * seed / 139968
end
local function heapsort(n, ra)
  local j, i, rra
  local l = math.floor(n / 2) + 1
  local ir = n
  while true do
    if l > 1 then
      l = l - 1
      rra = ra[l]
    else
      rra = ra[ir]
      ra[ir] = ra[1]
      ir = ir - 1
      if ir == 1 then ra[1] = rra return end
    end
    i = l
    j = l * 2
    while j <= ir do
      if j < ir and ra[j] < ra[j + 1] then j = j + 1 end
      if rra < ra[j] then
        ra[i] = ra[j]
        i = j
        j = j + i
      else
        j = ir + 1
      end
    end
    ra[i] = rra
  end
end
local N = 600000
local a = {}
for i = 1, N do a[i] = rand(1) end
heapsort(N, a)
for i = 1, N - 1 do assert(a[i] <= a[i + 1]) end
print(string.format("%.10f %.10f", a[1], a[N]))
