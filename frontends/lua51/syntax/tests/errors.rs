//! Syntax error messages, compared byte for byte with what the reference
//! `lua5.1` (5.1.5) prints. Every expected message below was obtained by
//! writing the snippet to a file `t.lua` and running `lua5.1 t.lua`
//! (stderr, without the `lua5.1: ` prefix). `against_lua51.rs` re-checks
//! such snippets against the binary when it is installed.

use lua51_syntax::{parse_chunk, parse_chunk_with, ParseOptions};

fn message(src: &[u8]) -> Vec<u8> {
    match parse_chunk(src, "t.lua") {
        Ok(chunk) => panic!("{:?} parsed, expected an error:\n{chunk}", String::from_utf8_lossy(src)),
        Err(e) => e.to_bytes(),
    }
}

fn check(src: &[u8], expected: &[u8]) {
    let got = message(src);
    assert!(
        got == expected,
        "source {:?}\n  expected {:?}\n  got      {:?}",
        String::from_utf8_lossy(src),
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(&got)
    );
}

/// (source, message printed by `lua5.1 t.lua`)
const CASES: &[(&[u8], &[u8])] = &[
    (b"x = = 1", b"t.lua:1: unexpected symbol near '='"),
    (b"x", b"t.lua:1: '=' expected near '<eof>'"),
    (b"x y", b"t.lua:1: '=' expected near 'y'"),
    (b"local = 1", b"t.lua:1: '<name>' expected near '='"),
    (b"local function = 1", b"t.lua:1: '<name>' expected near '='"),
    (b"local function f() ", b"t.lua:1: 'end' expected near '<eof>'"),
    (b"function f()\n  return 1\n", b"t.lua:3: 'end' expected (to close 'function' at line 1) near '<eof>'"),
    (b"function f() return 1", b"t.lua:1: 'end' expected near '<eof>'"),
    (b"if x then\n  y()\n", b"t.lua:3: 'end' expected (to close 'if' at line 1) near '<eof>'"),
    (b"if x then y()", b"t.lua:1: 'end' expected near '<eof>'"),
    (b"if x y() end", b"t.lua:1: 'then' expected near 'y'"),
    (b"while x do\n", b"t.lua:2: 'end' expected (to close 'while' at line 1) near '<eof>'"),
    (b"while x y() end", b"t.lua:1: 'do' expected near 'y'"),
    (b"for i = 1, 2 do\n", b"t.lua:2: 'end' expected (to close 'for' at line 1) near '<eof>'"),
    (b"for i = 1, 2\n", b"t.lua:2: 'do' expected near '<eof>'"),
    (b"for i = 1 do end", b"t.lua:1: ',' expected near 'do'"),
    (b"for i do end", b"t.lua:1: '=' or 'in' expected near 'do'"),
    (b"for 1 do end", b"t.lua:1: '<name>' expected near '1'"),
    (b"for a, b = 1, 2 do end", b"t.lua:1: 'in' expected near '='"),
    (b"for a, b do end", b"t.lua:1: 'in' expected near 'do'"),
    (b"do\n x = 1\n", b"t.lua:3: 'end' expected (to close 'do' at line 1) near '<eof>'"),
    (b"do x = 1", b"t.lua:1: 'end' expected near '<eof>'"),
    (b"repeat\n x = 1\n", b"t.lua:3: 'until' expected (to close 'repeat' at line 1) near '<eof>'"),
    (b"repeat x = 1", b"t.lua:1: 'until' expected near '<eof>'"),
    (b"repeat x = 1 until", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"f(\n1,\n2", b"t.lua:3: ')' expected (to close '(' at line 1) near '<eof>'"),
    (b"f(1, 2", b"t.lua:1: ')' expected near '<eof>'"),
    (b"x = (1 + \n 2", b"t.lua:2: ')' expected (to close '(' at line 1) near '<eof>'"),
    (b"x = (1 + 2", b"t.lua:1: ')' expected near '<eof>'"),
    (b"x = {\n1,\n2", b"t.lua:3: '}' expected (to close '{' at line 1) near '<eof>'"),
    (b"x = {1, 2", b"t.lua:1: '}' expected near '<eof>'"),
    (b"x = {1 2}", b"t.lua:1: '}' expected near '2'"),
    (b"x = a.1", b"t.lua:1: unexpected symbol near '.1'"),
    (b"x = a:b", b"t.lua:1: function arguments expected near '<eof>'"),
    (b"x = a:b.c", b"t.lua:1: function arguments expected near '.'"),
    (b"a:b = 1", b"t.lua:1: function arguments expected near '='"),
    (b"break", b"t.lua:1: no loop to break near '<eof>'"),
    (b"if x then break end", b"t.lua:1: no loop to break near 'end'"),
    (b"do break end", b"t.lua:1: no loop to break near 'end'"),
    (b"function f() break end", b"t.lua:1: no loop to break near 'end'"),
    (b"while true do local function g() break end end", b"t.lua:1: no loop to break near 'end'"),
    (b"function f() return ... end", b"t.lua:1: cannot use '...' outside a vararg function near '...'"),
    (b"function f(a) local x = ... end", b"t.lua:1: cannot use '...' outside a vararg function near '...'"),
    (b"x = function() return ... end", b"t.lua:1: cannot use '...' outside a vararg function near '...'"),
    (b"local f = g\n(h)()", b"t.lua:2: ambiguous syntax (function call x new statement) near '('"),
    (b"f\n(1)", b"t.lua:2: ambiguous syntax (function call x new statement) near '('"),
    (b"a.b\n(1)", b"t.lua:2: ambiguous syntax (function call x new statement) near '('"),
    (b"return return", b"t.lua:1: unexpected symbol near 'return'"),
    (b"return 1 x = 2", b"t.lua:1: '<eof>' expected near 'x'"),
    (b"while true do break x = 1 end", b"t.lua:1: 'end' expected near 'x'"),
    (b"end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"x = 1 end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"until x", b"t.lua:1: '<eof>' expected near 'until'"),
    (b"else", b"t.lua:1: '<eof>' expected near 'else'"),
    (b"elseif", b"t.lua:1: '<eof>' expected near 'elseif'"),
    (b"x = 3x", b"t.lua:1: malformed number near '3x'"),
    (b"x = 1e", b"t.lua:1: malformed number near '1e'"),
    (b"x = 0x", b"t.lua:1: malformed number near '0x'"),
    (b"x = 1..2", b"t.lua:1: malformed number near '1..2'"),
    (b"x = 'abc", b"t.lua:1: unfinished string near '<eof>'"),
    (b"x = \"abc\ny\"", b"t.lua:1: unfinished string near '\"abc'"),
    (b"x = 'a\\300'", b"t.lua:1: escape sequence too large near ''a'"),
    (b"x = [[abc", b"t.lua:1: unfinished long string near '<eof>'"),
    (b"x = [==[abc]=]", b"t.lua:1: unfinished long string near '<eof>'"),
    (b"--[[ abc", b"t.lua:1: unfinished long comment near '<eof>'"),
    (b"--[==[ abc\n\n", b"t.lua:3: unfinished long comment near '<eof>'"),
    (b"x = [[ a [[ b ]] ]]", b"t.lua:1: nesting of [[...]] is deprecated near '['"),
    (b"--[[ a [[ b ]] ]]", b"t.lua:1: nesting of [[...]] is deprecated near '['"),
    (b"x = [=a", b"t.lua:1: invalid long string delimiter near '[='"),
    (b"x = [==", b"t.lua:1: invalid long string delimiter near '[=='"),
    (b"x = @", b"t.lua:1: unexpected symbol near '@'"),
    (b"x = $", b"t.lua:1: unexpected symbol near '$'"),
    (b"x = ~ 1", b"t.lua:1: unexpected symbol near '~'"),
    (b"x = !", b"t.lua:1: unexpected symbol near '!'"),
    (b"x = 1 + ", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"x = not", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"x = #", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"x = -", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"f(1,)", b"t.lua:1: unexpected symbol near ')'"),
    (b"f(,1)", b"t.lua:1: unexpected symbol near ','"),
    (b"function f(a,) end", b"t.lua:1: <name> or '...' expected near ')'"),
    (b"function f(1) end", b"t.lua:1: <name> or '...' expected near '1'"),
    (b"function f(..., a) end", b"t.lua:1: ')' expected near ','"),
    (b"function f(a b) end", b"t.lua:1: ')' expected near 'b'"),
    (b"function f end", b"t.lua:1: '(' expected near 'end'"),
    (b"function f.1() end", b"t.lua:1: '(' expected near '.1'"),
    (b"function f:a.b() end", b"t.lua:1: '(' expected near '.'"),
    (b"function (a) end", b"t.lua:1: '<name>' expected near '('"),
    (b"local function f.a() end", b"t.lua:1: '(' expected near '.'"),
    (b"local 1", b"t.lua:1: '<name>' expected near '1'"),
    (b"local a, = 1", b"t.lua:1: '<name>' expected near '='"),
    (b"local a = ", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"(a) = 1", b"t.lua:1: syntax error near '='"),
    (b"a, (b) = 1, 2", b"t.lua:1: syntax error near '='"),
    (b"a, f() = 1, 2", b"t.lua:1: syntax error near '='"),
    (b"(f())", b"t.lua:1: syntax error near '<eof>'"),
    (b"f() = 1", b"t.lua:1: unexpected symbol near '='"),
    (b"a.b:c() = 1", b"t.lua:1: unexpected symbol near '='"),
    (b"x = {[1] 2}", b"t.lua:1: '=' expected near '2'"),
    (b"x = {[1] = }", b"t.lua:1: unexpected symbol near '}'"),
    (b"x = {a = }", b"t.lua:1: unexpected symbol near '}'"),
    (b"x = {a = 1,, b}", b"t.lua:1: unexpected symbol near ','"),
    (b"x = {;}", b"t.lua:1: unexpected symbol near ';'"),
    (b"x = a[1", b"t.lua:1: ']' expected near '<eof>'"),
    (b"x = a[]", b"t.lua:1: unexpected symbol near ']'"),
    (b"x = (", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"x = ()", b"t.lua:1: unexpected symbol near ')'"),
    (b"if x then else elseif y then end", b"t.lua:1: 'end' expected near 'elseif'"),
    (b"if x then elseif end", b"t.lua:1: unexpected symbol near 'end'"),
    (b"x = 1 y = 2 3", b"t.lua:1: unexpected symbol near '3'"),
    (b"f{1}{2}'x' 1", b"t.lua:1: unexpected symbol near '1'"),
    (b"a.b.c.d = 1 2", b"t.lua:1: unexpected symbol near '2'"),
    (b"x = 'unterminated\\", b"t.lua:1: unfinished string near '<eof>'"),
    (b"x = function", b"t.lua:1: '(' expected near '<eof>'"),
    (b"x = function(", b"t.lua:1: <name> or '...' expected near '<eof>'"),
    (b"x = function()", b"t.lua:1: 'end' expected near '<eof>'"),
    (b"return function() end end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"x = 1; ;", b"t.lua:1: unexpected symbol near ';'"),
    (b";", b"t.lua:1: unexpected symbol near ';'"),
    (b"local a <const> = 1", b"t.lua:1: unexpected symbol near '<'"),
    (b"goto x", b"t.lua:1: '=' expected near 'x'"),
    (b"::x::", b"t.lua:1: unexpected symbol near ':'"),
    (b"x = 1 // 2", b"t.lua:1: unexpected symbol near '/'"),
    (b"x = a & b", b"t.lua:1: unexpected symbol near '&'"),
    (b"x = 0x1p-4", b"t.lua:1: malformed number near '0x1p'"),
    (b"for i = 1, 2, 3, 4 do end", b"t.lua:1: 'do' expected near ','"),
    (b"for k, v in pairs(t) do\n", b"t.lua:2: 'end' expected (to close 'for' at line 1) near '<eof>'"),
    (b"for k, v in do end", b"t.lua:1: unexpected symbol near 'do'"),
    (b"for k, 1 in t do end", b"t.lua:1: '<name>' expected near '1'"),
    (b"while do end", b"t.lua:1: unexpected symbol near 'do'"),
    (b"if then end", b"t.lua:1: unexpected symbol near 'then'"),
    (b"repeat until", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"print('a' 'b')", b"t.lua:1: ')' expected near ''b''"),
    (b"x = a..b..", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"x = {f()\n(g)}", b"t.lua:2: ambiguous syntax (function call x new statement) near '('"),
    (b"x = y\n(z)", b"t.lua:2: ambiguous syntax (function call x new statement) near '('"),
    (b"x = \"\\\n", b"t.lua:2: unfinished string near '<eof>'"),
    (b"x = 'a\\0b' 1", b"t.lua:1: unexpected symbol near '1'"),
    (b"x = 1 'a\\0b'", b"t.lua:1: unexpected symbol near ''a'"),
    (b"x = 1 '\\0'", b"t.lua:1: unexpected symbol near '''"),
    (b"x = 1 [==[\nfoo\nbar]==]", b"t.lua:3: unexpected symbol near '[==[foo\nbar]==]'"),
    (b"x = 1 'tab\\there'", b"t.lua:1: unexpected symbol near ''tab\there''"),
    (b"f = function(...) local arg = 1 return arg end end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"\n\n\nx = = 1", b"t.lua:4: unexpected symbol near '='"),
    (b"x = 1\r\ny = = 2", b"t.lua:2: unexpected symbol near '='"),
    (b"x = 1\n\ry = = 2", b"t.lua:2: unexpected symbol near '='"),
    (b"x = 1\r\n\r\ny = = 2", b"t.lua:3: unexpected symbol near '='"),
    (b"x = 1\r\ry = = 2", b"t.lua:3: unexpected symbol near '='"),
    (b"x = 1\n\ny = = 2", b"t.lua:3: unexpected symbol near '='"),
    (b"--comment\nx = = 1", b"t.lua:2: unexpected symbol near '='"),
    (b"--[[\n\n]] x = = 1", b"t.lua:3: unexpected symbol near '='"),
    (b"x = [[\n\n]] = 1", b"t.lua:3: unexpected symbol near '='"),
    (b"#!/usr/bin/lua\nx = = 1", b"t.lua:2: unexpected symbol near '='"),
    (b"#!/usr/bin/lua\r\nx = = 1", b"t.lua:2: unexpected symbol near '='"),
    (b"x = 1 --[[ unfinished", b"t.lua:1: unfinished long comment near '<eof>'"),
    (b"x = 1 --[==[ fine ]==] y = = 2", b"t.lua:1: unexpected symbol near '='"),
    (b"local t = {\n  a = 1,\n  b = 2\n", b"t.lua:4: '}' expected (to close '{' at line 1) near '<eof>'"),
    (b"local function f()\n  if x then\n    return\n  end\n", b"t.lua:5: 'end' expected (to close 'function' at line 1) near '<eof>'"),
    (b"x = 12e+", b"t.lua:1: malformed number near '12e+'"),
    (b"x = .5e", b"t.lua:1: malformed number near '.5e'"),
    (b"x = 5..", b"t.lua:1: malformed number near '5..'"),
    (b"x = 0x1G", b"t.lua:1: malformed number near '0x1G'"),
    (b"x = 08x", b"t.lua:1: malformed number near '08x'"),
    (b"x = \0", b"t.lua:1: unexpected symbol"),
    (b"x = \x01", b"t.lua:1: unexpected symbol near 'char(1)'"),
    (b"x = \x7f", b"t.lua:1: unexpected symbol near 'char(127)'"),
    (b"x = \xc8", b"t.lua:1: unexpected symbol near '\xc8'"),
    (b"x = '\xc8\xc9' 1 2", b"t.lua:1: unexpected symbol near '1'"),
    (b"x = 1 '\xc8'", b"t.lua:1: unexpected symbol near ''\xc8''"),
    (b"f(\n)\n(g)()", b"t.lua:3: ambiguous syntax (function call x new statement) near '('"),
    (b"local t = {\n  f = function()\n    return 1\n  end,\n  g = 2\n  h = 3\n}", b"t.lua:6: '}' expected (to close '{' at line 1) near 'h'"),
    (
        b"function f()\n  while true do\n    if x then\n      break\n      y()\n    end\n  end\nend",
        b"t.lua:5: 'end' expected (to close 'if' at line 3) near 'y'",
    ),
    (b"local x <close> = 1", b"t.lua:1: unexpected symbol near '<'"),
    (b"x = a.b.c:d", b"t.lua:1: function arguments expected near '<eof>'"),
    (b"x = {[1]=2, [3]}", b"t.lua:1: '=' expected near '}'"),
    (b"x = {a.b = 1}", b"t.lua:1: '}' expected near '='"),
    (b"x = {f() = 1}", b"t.lua:1: '}' expected near '='"),
    (b"a.b:c = 1", b"t.lua:1: function arguments expected near '='"),
    (b"a, b", b"t.lua:1: '=' expected near '<eof>'"),
    (b"a, b = ", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"a, 1 = 2", b"t.lua:1: unexpected symbol near '1'"),
    (b"local a, b, = 1", b"t.lua:1: '<name>' expected near '='"),
    (b"local function f(a, b", b"t.lua:1: ')' expected near '<eof>'"),
    (b"local function f(a, b)\n  return a +\n", b"t.lua:3: unexpected symbol near '<eof>'"),
    (b"return 1,", b"t.lua:1: unexpected symbol near '<eof>'"),
    (b"return (1", b"t.lua:1: ')' expected near '<eof>'"),
    (b"return )", b"t.lua:1: unexpected symbol near ')'"),
    (b"x = y z = w 1", b"t.lua:1: unexpected symbol near '1'"),
    (b"if x then\nelse\nelse\nend", b"t.lua:3: 'end' expected (to close 'if' at line 1) near 'else'"),
    (b"for i = 1,\n2,\ndo end", b"t.lua:3: unexpected symbol near 'do'"),
    (b"for i in 1 do\n  x = 1\nelse\nend", b"t.lua:3: 'end' expected (to close 'for' at line 1) near 'else'"),
    (b"function f(...)\n  return function() return ... end\nend", b"t.lua:2: cannot use '...' outside a vararg function near '...'"),
    (b"repeat local x = 1 until x == \n", b"t.lua:2: unexpected symbol near '<eof>'"),
    (b"while x do end end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"do end do end end", b"t.lua:1: '<eof>' expected near 'end'"),
    (b"x = 5 y = [==[\nabc\n]=] ]==] z = = 1", b"t.lua:3: unexpected symbol near '='"),
    (b"x = 'a\\\nb' = 1", b"t.lua:2: unexpected symbol near '='"),
    (b"x = 0x1.8", b"t.lua:1: unexpected symbol near '.8'"),
    (b"x = 1e5.5", b"t.lua:1: unexpected symbol near '.5'"),
    (b"x = 3 .. 4 5", b"t.lua:1: unexpected symbol near '5'"),
    (b"x = [[\n]] [[", b"t.lua:2: unfinished long string near '<eof>'"),
    (b"x = \"\\", b"t.lua:1: unfinished string near '<eof>'"),
];

#[test]
fn messages_match_lua51() {
    for (src, expected) in CASES {
        check(src, expected);
    }
}

#[test]
fn display_is_the_lossy_message() {
    let e = parse_chunk(b"x = 1 '\xc8'", "t.lua").unwrap_err();
    assert_eq!(e.to_bytes(), b"t.lua:1: unexpected symbol near ''\xc8''");
    assert_eq!(e.to_string(), "t.lua:1: unexpected symbol near ''\u{fffd}''");
    assert_eq!(e.line, 1);
    assert_eq!(e.message, "unexpected symbol");
    assert_eq!(e.near.as_deref(), Some(&b"'\xc8'"[..]));
}

#[test]
fn chunk_names() {
    let e = parse_chunk(b"x = = 1", "(command line)").unwrap_err();
    assert_eq!(e.to_string(), "(command line):1: unexpected symbol near '='");
    let name = lua51_syntax::chunk_id_for_syntax_error("x = = 1");
    let e = parse_chunk(b"x = = 1", &name).unwrap_err();
    assert_eq!(e.to_string(), "[string \"x = = 1\"]:1: unexpected symbol near '='");
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

#[test]
fn local_variable_limit() {
    let locals = |n| format!("local {}", names("a", n).join(","));
    assert!(parse_chunk(locals(200).as_bytes(), "t.lua").is_ok());
    check(locals(201).as_bytes(), b"t.lua:1: main function has more than 200 local variables");
    check(format!("function f()\n {}\nend", locals(201)).as_bytes(), b"t.lua:3: function at line 1 has more than 200 local variables");
    let lines = |n| names("local a", n).join("\n");
    check(lines(201).as_bytes(), b"t.lua:201: main function has more than 200 local variables");
    // A numeric for loop holds three hidden locals and its variable.
    assert!(parse_chunk(format!("for i=1,2 do\n{}\nend", lines(196)).as_bytes(), "t.lua").is_ok());
    check(format!("for i=1,2 do\n{}\nend", lines(197)).as_bytes(), b"t.lua:199: main function has more than 200 local variables");
    // Parameters count, so do `self` and the implicit `arg` of vararg functions.
    check(format!("function f({}) end", names("a", 201).join(",")).as_bytes(), b"t.lua:1: function at line 1 has more than 200 local variables");
    assert!(parse_chunk(format!("function f({}, ...) end", names("a", 199).join(",")).as_bytes(), "t.lua").is_ok());
    check(format!("function f({}, ...) end", names("a", 200).join(",")).as_bytes(), b"t.lua:1: function at line 1 has more than 200 local variables");
    check(format!("function t:f({}) end", names("a", 200).join(",")).as_bytes(), b"t.lua:1: function at line 1 has more than 200 local variables");
}

#[test]
fn upvalue_limit() {
    let prog = |n| format!("{}\nfunction f() return {} end", names("local a", n).join("\n"), names("a", n).join("+"));
    assert!(parse_chunk(prog(60).as_bytes(), "t.lua").is_ok());
    check(prog(61).as_bytes(), b"t.lua:62: function at line 62 has more than 60 upvalues");
    // Repeated references share one upvalue.
    let sum = names("a", 60).join("+");
    let repeated = format!("{}\nfunction f() return {sum}+{sum} end", names("local a", 60).join("\n"));
    assert!(parse_chunk(repeated.as_bytes(), "t.lua").is_ok());
    // Upvalues propagate through intermediate functions.
    let nested = format!("{}\nfunction f() return function() return {} end end", names("local a", 61).join("\n"), names("a", 61).join("+"));
    check(nested.as_bytes(), b"t.lua:62: function at line 62 has more than 60 upvalues");
    let in_function = format!("function f()\n{}\nlocal function g() return {} end end", names("local a", 100).join("\n"), names("a", 61).join("+"));
    check(in_function.as_bytes(), b"t.lua:102: function at line 102 has more than 60 upvalues");
    // Globals are not upvalues.
    let globals = format!("function f() return {} end", names("g", 100).join("+"));
    assert!(parse_chunk(globals.as_bytes(), "t.lua").is_ok());
}

#[test]
fn assignment_target_limit() {
    let assign = |n| format!("{} = 1", names("a", n).join(","));
    assert!(parse_chunk(assign(199).as_bytes(), "t.lua").is_ok());
    check(assign(200).as_bytes(), b"t.lua:1: main function has more than 198 variables in assignment");
    check(format!("do do {} end end", assign(198)).as_bytes(), b"t.lua:1: main function has more than 196 variables in assignment");
}

/// (construct, deepest accepted nesting, shallowest rejected nesting) for a
/// script file; lua5.1 reports `chunk has too many syntax levels`.
#[test]
fn nesting_limit() {
    type Make = Box<dyn Fn(usize) -> String>;
    let cases: Vec<(&str, Make, usize)> = vec![
        ("parens", Box::new(|n| format!("x = {}1{}", "(".repeat(n), ")".repeat(n))), 197),
        ("do", Box::new(|n| format!("{}{}", "do ".repeat(n), " end".repeat(n))), 198),
        ("functions", Box::new(|n| format!("x = {}{}", "function() return ".repeat(n), "end ".repeat(n))), 99),
        ("unary", Box::new(|n| format!("x = {}1", "- ".repeat(n))), 197),
        ("concat", Box::new(|n| format!("x = 1{}", " .. 1".repeat(n))), 197),
        ("power", Box::new(|n| format!("x = 1{}", " ^ 1".repeat(n))), 197),
        ("tables", Box::new(|n| format!("x = {}{}", "{".repeat(n), "}".repeat(n))), 198),
        ("index", Box::new(|n| format!("x = {}1{}", "a[".repeat(n), "]".repeat(n))), 197),
    ];
    for (what, make, max_ok) in cases {
        assert!(parse_chunk(make(max_ok).as_bytes(), "t.lua").is_ok(), "{what} {max_ok}");
        check(make(max_ok + 1).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    }
    // Way past the limit: an error, not a stack overflow.
    check("do ".repeat(100_000).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    check(format!("x = {}", "{".repeat(100_000)).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    check(format!("x = {}", "not ".repeat(300)).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    check("if x then ".repeat(300).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    check("repeat ".repeat(300).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
    check(format!("x = {}", "f(".repeat(300)).as_bytes(), b"t.lua:1: chunk has too many syntax levels");
}

#[test]
fn nesting_limit_counts_from_c_calls() {
    // `loadstring` called from a main chunk runs one C level deeper than a
    // script file, so lua5.1 accepts one level less.
    let opts = ParseOptions { skip_shebang: false, c_calls: 2, out_of_memory: None };
    let parens = |n| format!("x = {}1{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_chunk_with(parens(196).as_bytes(), "t", &opts).is_ok());
    let e = parse_chunk_with(parens(197).as_bytes(), "t", &opts).unwrap_err();
    assert_eq!(e.to_string(), "t:1: chunk has too many syntax levels");
}
