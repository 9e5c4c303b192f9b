-- A step that is a non-numeric string is rejected before the first iteration.
for i = 1, 3, "2" do print("numeric string step", i) end
for i = 1, 3, "two" do print("never") end
