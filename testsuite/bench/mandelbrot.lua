-- Escape-time Mandelbrot set over a grid: pure floating-point arithmetic and branches in
-- a tight while loop. Prints the number of points in the set and the total iteration count.
local size, max_iter = 1000, 100
local inside, total = 0, 0
for py = 0, size - 1 do
  local ci = py * 2 / size - 1
  for px = 0, size - 1 do
    local cr = px * 2.5 / size - 2
    local zr, zi, zr2, zi2 = 0, 0, 0, 0
    local n = 0
    while n < max_iter and zr2 + zi2 <= 4 do
      zi = 2 * zr * zi + ci
      zr = zr2 - zi2 + cr
      zr2 = zr * zr
      zi2 = zi * zi
      n = n + 1
    end
    if n == max_iter then inside = inside + 1 end
    total = total + n
  end
end
print(inside, total)
