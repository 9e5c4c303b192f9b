-- Booleans have no order.
print(true == true, false ~= true)
print(true < false)
