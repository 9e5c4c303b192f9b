-- Decimal escapes above \255 are rejected.
print("ok \255")
print("bad \256")
