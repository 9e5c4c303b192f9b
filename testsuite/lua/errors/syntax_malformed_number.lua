-- A numeral immediately followed by letters is one malformed token.
local a = 1
local b = 3x
