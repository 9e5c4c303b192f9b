//! Parser tests: every statement and expression form, precedence and
//! associativity, and the line numbers and function metadata a code
//! generator relies on. Trees are compared through the S-expression dump.

use lua51_syntax::*;

fn parse(src: &str) -> Chunk {
    parse_chunk(src.as_bytes(), "t.lua").unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

fn dump(src: &str) -> String {
    parse(src).to_string()
}

/// The dump of the single expression in `return <src>`.
fn ex(src: &str) -> String {
    let d = dump(&format!("return {src}"));
    d.strip_prefix("(return ").and_then(|d| d.strip_suffix(')')).unwrap_or_else(|| panic!("{src:?}: {d}")).to_string()
}

fn first_expr(chunk: &Chunk) -> &Expr {
    match &chunk.body.stats[0].kind {
        StatKind::Return(v) | StatKind::Local { values: v, .. } => &v[0],
        StatKind::Call(e) => e,
        other => panic!("unexpected statement {other:?}"),
    }
}

#[test]
fn literals() {
    assert_eq!(ex("nil, true, false"), "nil true false");
    assert_eq!(ex("1, 2.5, 1e100, 0x10"), "1 2.5 1e100 16");
    assert_eq!(ex("'a', \"b\\n\", [[c]]"), r#""a" "b\n" "c""#);
    assert_eq!(ex("..."), "...");
    assert_eq!(ex("'\\0\\1\\2551'"), r#""\0\1\2551""#);
}

#[test]
fn arithmetic_precedence() {
    assert_eq!(ex("1 + 2 * 3"), "(+ 1 (* 2 3))");
    assert_eq!(ex("1 * 2 + 3"), "(+ (* 1 2) 3)");
    assert_eq!(ex("1 - 2 - 3"), "(- (- 1 2) 3)");
    assert_eq!(ex("1 / 2 / 3"), "(/ (/ 1 2) 3)");
    assert_eq!(ex("1 % 2 * 3"), "(* (% 1 2) 3)");
    assert_eq!(ex("(1 + 2) * 3"), "(* (paren (+ 1 2)) 3)");
}

#[test]
fn power_and_unary() {
    // `^` is right associative and binds tighter than unary operators on its left.
    assert_eq!(ex("2 ^ 3 ^ 2"), "(^ 2 (^ 3 2))");
    assert_eq!(ex("-x ^ 2"), "(neg (^ x 2))");
    assert_eq!(ex("2 ^ -x"), "(^ 2 (neg x))");
    assert_eq!(ex("2 ^ -x ^ 2"), "(^ 2 (neg (^ x 2)))");
    assert_eq!(ex("-x * y"), "(* (neg x) y)");
    assert_eq!(ex("not a == b"), "(== (not a) b)");
    assert_eq!(ex("#t + 1"), "(+ (len t) 1)");
    assert_eq!(ex("- - x"), "(neg (neg x))");
    assert_eq!(ex("not not x"), "(not (not x))");
    assert_eq!(ex("-#t ^ 2"), "(neg (len (^ t 2)))");
}

#[test]
fn concat_and_comparison() {
    assert_eq!(ex("a .. b .. c"), "(.. a (.. b c))");
    assert_eq!(ex("a .. b + c"), "(.. a (+ b c))");
    assert_eq!(ex("a + b .. c"), "(.. (+ a b) c)");
    assert_eq!(ex("a < b .. c"), "(< a (.. b c))");
    assert_eq!(ex("a < b < c"), "(< (< a b) c)");
    assert_eq!(ex("a == b ~= c <= d >= e < f > g"), "(> (< (>= (<= (~= (== a b) c) d) e) f) g)");
}

#[test]
fn logical_operators() {
    assert_eq!(ex("a or b and c"), "(or a (and b c))");
    assert_eq!(ex("a and b or c"), "(or (and a b) c)");
    assert_eq!(ex("a or b or c"), "(or (or a b) c)");
    assert_eq!(ex("a and b and c"), "(and (and a b) c)");
    assert_eq!(ex("a == b and c ~= d"), "(and (== a b) (~= c d))");
    assert_eq!(ex("not a or b"), "(or (not a) b)");
    assert_eq!(ex("1 + 2 .. 3 < 4 and 5 or 6"), "(or (and (< (.. (+ 1 2) 3) 4) 5) 6)");
}

#[test]
fn suffixed_expressions() {
    assert_eq!(ex("a.b.c"), r#"(index (index a "b") "c")"#);
    assert_eq!(ex("a[1][b]"), "(index (index a 1) b)");
    assert_eq!(ex("a['b']"), r#"(index a "b")"#);
    assert_eq!(ex("f()"), "(call f)");
    assert_eq!(ex("f(1, 2)"), "(call f 1 2)");
    assert_eq!(ex("f 'x'"), r#"(call f "x")"#);
    assert_eq!(ex("f [[x]]"), r#"(call f "x")"#);
    assert_eq!(ex("f {1}"), "(call f (table 1))");
    assert_eq!(ex("o:m(1)"), "(method o m 1)");
    assert_eq!(ex("o:m 's'"), r#"(method o m "s")"#);
    assert_eq!(ex("o:m {}"), "(method o m (table))");
    assert_eq!(ex("f()()"), "(call (call f))");
    assert_eq!(ex("a.b:c(d).e[f]()"), r#"(call (index (index (method (index a "b") c d) "e") f))"#);
    assert_eq!(ex("(f)()"), "(call (paren f))");
    assert_eq!(ex("('x'):rep(3)"), r#"(method (paren "x") rep 3)"#);
    assert_eq!(ex("(f())"), "(paren (call f))");
    assert_eq!(ex("(...)"), "(paren ...)");
}

#[test]
fn multi_value_expressions() {
    let chunk = parse("return f(), (f()), ..., (...), o:m(), 1");
    let StatKind::Return(values) = &chunk.body.stats[0].kind else { panic!() };
    let multi: Vec<bool> = values.iter().map(|e| e.kind.is_multi_value()).collect();
    assert_eq!(multi, vec![true, false, true, false, true, false]);
}

#[test]
fn table_constructors() {
    assert_eq!(ex("{}"), "(table)");
    assert_eq!(ex("{1, 2, 3}"), "(table 1 2 3)");
    assert_eq!(ex("{1; 2; 3;}"), "(table 1 2 3)");
    assert_eq!(ex("{1, 2,}"), "(table 1 2)");
    assert_eq!(ex("{x = 1, ['y'] = 2, [3] = 4}"), r#"(table x=1 ["y"]=2 [3]=4)"#);
    assert_eq!(ex("{x, x = x, [x] = x}"), "(table x x=x [x]=x)");
    assert_eq!(ex("{f(), ...}"), "(table (call f) ...)");
    assert_eq!(ex("{x == 1}"), "(table (== x 1))");
    assert_eq!(ex("{{}, {{}}}"), "(table (table) (table (table)))");
    assert_eq!(ex("{function() end}"), "(table (function () []))");
}

#[test]
fn function_expressions() {
    assert_eq!(ex("function() end"), "(function () [])");
    assert_eq!(ex("function(a, b) return a end"), "(function (a b) [(return a)])");
    assert_eq!(ex("function(...) return ... end"), "(function (...) [(return ...)])");
    assert_eq!(ex("function(a, ...) end"), "(function (a ...) [])");
}

#[test]
fn local_statements() {
    assert_eq!(dump("local a"), "(local (a) ())");
    assert_eq!(dump("local a, b = 1"), "(local (a b) (1))");
    assert_eq!(dump("local a = 1, 2, f()"), "(local (a) (1 2 (call f)))");
    assert_eq!(dump("local function f(x) return f(x) end"), "(local-function f (function (x) [(return (call f x))]))");
}

#[test]
fn assignments_and_calls() {
    assert_eq!(dump("x = 1"), "(assign (x) (1))");
    assert_eq!(dump("a, b.c, d[1] = 1, 2"), r#"(assign (a (index b "c") (index d 1)) (1 2))"#);
    assert_eq!(dump("a.b.c = f()"), r#"(assign ((index (index a "b") "c")) ((call f)))"#);
    assert_eq!(dump("(a).b = 1"), r#"(assign ((index (paren a) "b")) (1))"#);
    assert_eq!(dump("f(a)(b)"), "(call (call f a) b)");
    assert_eq!(dump("a.b:c 'x'"), r#"(method (index a "b") c "x")"#);
    assert_eq!(dump("f{} g''"), "(call f (table))\n(call g \"\")");
}

#[test]
fn function_statements() {
    assert_eq!(dump("function f() end"), "(function f (function () []))");
    assert_eq!(dump("function a.b.c() end"), "(function a.b.c (function () []))");
    assert_eq!(dump("function a.b:c(x) end"), "(function a.b:c (function (self x) []))");
    assert_eq!(dump("function a:c(...) end"), "(function a:c (function (self ...) []))");
    let chunk = parse("function a.b:c(x) end");
    let StatKind::Function { name, func } = &chunk.body.stats[0].kind else { panic!() };
    assert_eq!(name.base.as_bytes(), b"a");
    assert_eq!(name.fields, vec![LuaStr::from("b")]);
    assert_eq!(name.method, Some(LuaStr::from("c")));
    assert!(func.is_method);
    // `self` is implicit: not in `params`, but shown by the dump.
    assert_eq!(func.params, vec![LuaStr::from("x")]);
}

#[test]
fn control_structures() {
    assert_eq!(dump("do end"), "(do [])");
    assert_eq!(dump("do local x end"), "(do [(local (x) ())])");
    assert_eq!(dump("while x do f() end"), "(while x [(call f)])");
    assert_eq!(dump("repeat local y = 1 until y"), "(repeat [(local (y) (1))] y)");
    assert_eq!(dump("if a then end"), "(if a [])");
    assert_eq!(dump("if a then x() else y() end"), "(if a [(call x)] (else [(call y)]))");
    assert_eq!(
        dump("if a then x() elseif b then y() elseif c then z() else w() end"),
        "(if a [(call x)] (elseif b [(call y)]) (elseif c [(call z)]) (else [(call w)]))"
    );
    assert_eq!(dump("for i = 1, 10 do end"), "(for i 1 10 [])");
    assert_eq!(dump("for i = 10, 1, -1 do f(i) end"), "(for i 10 1 (neg 1) [(call f i)])");
    assert_eq!(dump("for k in pairs(t) do end"), "(for-in (k) ((call pairs t)) [])");
    assert_eq!(dump("for k, v in next, t, nil do end"), "(for-in (k v) (next t nil) [])");
}

#[test]
fn return_and_break() {
    assert_eq!(dump("return"), "(return)");
    assert_eq!(dump("return;"), "(return)");
    assert_eq!(dump("return 1, 2"), "(return 1 2)");
    assert_eq!(dump("do return end"), "(do [(return)])");
    assert_eq!(dump("while 1 do break end"), "(while 1 [(break)])");
    assert_eq!(dump("while 1 do break; end"), "(while 1 [(break)])");
    assert_eq!(dump("repeat break until x"), "(repeat [(break)] x)");
    assert_eq!(dump("for i = 1, 2 do if i then break end end"), "(for i 1 2 [(if i [(break)])])");
    // `return` ends the block only when followed by a block end.
    assert_eq!(dump("if x then return end f()"), "(if x [(return)])\n(call f)");
}

#[test]
fn semicolons_and_empty_chunks() {
    assert_eq!(dump(""), "");
    assert_eq!(dump("-- just a comment"), "");
    assert_eq!(dump("a = 1; b = 2;"), "(assign (a) (1))\n(assign (b) (2))");
    assert_eq!(dump("f() g()"), "(call f)\n(call g)");
}

#[test]
fn shebang_line_is_skipped() {
    assert_eq!(dump("#!/usr/bin/env lua\nreturn 1"), "(return 1)");
    assert_eq!(dump("# comment"), "");
    let chunk = parse("#!/usr/bin/env lua\nreturn 1");
    assert_eq!(chunk.body.stats[0].line, 2);
    // loadstring does not skip it.
    let opts = ParseOptions { skip_shebang: false, ..ParseOptions::default() };
    let err = parse_chunk_with(b"#!x\nreturn 1", "t.lua", &opts).unwrap_err();
    assert_eq!(err.to_string(), "t.lua:1: unexpected symbol near '#'");
}

#[test]
fn vararg_flags() {
    let chunk = parse("local function f(a, ...) return function(...) return 1 end end return ...");
    assert!(chunk.uses_vararg);
    let StatKind::LocalFunction { func, .. } = &chunk.body.stats[0].kind else { panic!() };
    assert!(func.is_vararg);
    // `...` in the nested function does not count for the outer one.
    assert!(!func.uses_vararg);
    assert_eq!(func.params, vec![LuaStr::from("a")]);
    let StatKind::Return(v) = &func.body.stats[0].kind else { panic!() };
    let ExprKind::Function(inner) = &v[0].kind else { panic!() };
    assert!(inner.is_vararg && !inner.uses_vararg);
    assert!(!parse("return 1").uses_vararg);
}

#[test]
fn statement_lines() {
    let chunk = parse("x = 1\n\nlocal y\nif a then\n  f()\nend\n");
    let lines: Vec<u32> = chunk.body.stats.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 3, 4]);
    let StatKind::If { clauses, .. } = &chunk.body.stats[2].kind else { panic!() };
    assert_eq!(clauses[0].body.stats[0].line, 5);
    assert_eq!(chunk.end_line, 6);
    assert_eq!(parse("").end_line, 1);
}

#[test]
fn expression_lines() {
    // A call is attributed to the line of its argument list.
    let chunk = parse("f\n'x'");
    let call = first_expr(&chunk);
    assert_eq!((call.line, call.end_line), (2, 2));
    let chunk = parse("local x = f(\n1,\n2\n)");
    let call = first_expr(&chunk);
    assert_eq!((call.line, call.end_line), (1, 4));
    // Binary operators: the operator's line; end_line is the right operand's last token.
    let chunk = parse("return a\n+\nb");
    let e = first_expr(&chunk);
    assert_eq!((e.line, e.end_line), (2, 3));
    let ExprKind::Binary { lhs, rhs, .. } = &e.kind else { panic!() };
    assert_eq!((lhs.line, rhs.line), (1, 3));
    // Index: the line of `.` / `[`.
    let chunk = parse("return a\n.b\n[c]");
    let e = first_expr(&chunk);
    assert_eq!((e.line, e.end_line), (3, 3));
    // Method call: the argument list's line.
    let chunk = parse("o\n:m\n'x'");
    assert_eq!(first_expr(&chunk).line, 3);
    // Multi-line long string: the line where it ends.
    let chunk = parse("return [[a\nb]]");
    assert_eq!(first_expr(&chunk).line, 2);
    // Tables and parentheses: the opening token.
    let chunk = parse("return {\n1}, (\n2)");
    let StatKind::Return(v) = &chunk.body.stats[0].kind else { panic!() };
    assert_eq!((v[0].line, v[0].end_line, v[1].line, v[1].end_line), (1, 2, 2, 3));
}

#[test]
fn function_lines() {
    // lua5.1's linedefined: the `function` keyword for statements, the token
    // after the name (or after `function`) for the other forms.
    let src = "function f()\nend\nlocal function g\n()\n\nend\nx = function\n(\n)\nend";
    let chunk = parse(src);
    let bodies: Vec<(u32, u32)> = chunk
        .body
        .stats
        .iter()
        .map(|s| match &s.kind {
            StatKind::Function { func, .. } | StatKind::LocalFunction { func, .. } => (func.line_defined, func.last_line_defined),
            StatKind::Assign { values, .. } => match &values[0].kind {
                ExprKind::Function(func) => (func.line_defined, func.last_line_defined),
                _ => panic!(),
            },
            _ => panic!(),
        })
        .collect();
    assert_eq!(bodies, vec![(1, 2), (4, 6), (8, 10)]);
    let StatKind::Assign { values, .. } = &chunk.body.stats[2].kind else { panic!() };
    assert_eq!(values[0].line, 7);
}

#[test]
fn generic_for_iter_line() {
    let chunk = parse("for k, v in\npairs(t) do end");
    let StatKind::GenericFor { iter_line, .. } = &chunk.body.stats[0].kind else { panic!() };
    assert_eq!(*iter_line, 2);
}

#[test]
fn repeat_condition_sees_body_locals() {
    // Not an error (and the AST keeps the condition with the body).
    assert_eq!(dump("repeat local done = true until done"), "(repeat [(local (done) (true))] done)");
}

#[test]
fn byte_strings_and_names() {
    let chunk = parse_chunk(b"return '\xff\0'", "t").unwrap();
    let ExprKind::String(s) = &first_expr(&chunk).kind else { panic!() };
    assert_eq!(s.as_bytes(), b"\xff\0");
    assert_eq!(s.to_string(), r#""\255\0""#);
}

#[test]
fn ast_is_clone_and_eq() {
    let a = parse("local t = {1, x = f(...)} for i = 1, #t do print(t[i] .. 'x') end");
    let b = a.clone();
    assert_eq!(a, b);
    assert_ne!(a, parse("local t = {1, x = f(...)} for i = 1, #t do print(t[i] .. 'y') end"));
    // Debug is available for every node.
    assert!(format!("{a:?}").contains("NumericFor"));
}

#[test]
fn absurd_c_call_depth_is_an_error() {
    let opts = ParseOptions { skip_shebang: false, c_calls: u32::MAX, out_of_memory: None };
    let e = parse_chunk_with(b"x = 1", "t", &opts).unwrap_err();
    assert_eq!(e.to_string(), "t:1: chunk has too many syntax levels");
}

/// `parse_chunk_each` hands over the top-level statements one at a time, in order, each the
/// tree `parse_chunk` builds; a syntax error comes after the statements before it, and an
/// error of the consumer stops the parse at once (a later syntax error is never reached).
#[test]
fn statements_one_at_a_time() {
    let src = "#!shebang\nlocal a = 1\nfunction f() return a end; x = {f()}\nreturn x";
    let opts = ParseOptions::default();
    let whole = parse_chunk_with(src.as_bytes(), "t.lua", &opts).unwrap();
    let mut seen = Vec::new();
    let end = parse_chunk_each(src.as_bytes(), "t.lua", &opts, |s| {
        seen.push(s);
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(seen, whole.body.stats);
    assert_eq!(seen.len(), 4);
    assert_eq!(end, ChunkEnd { end_line: whole.end_line, uses_vararg: whole.uses_vararg });
    let end = parse_chunk_each(b"return ...", "t.lua", &opts, |_| Ok::<(), ()>(())).unwrap();
    assert!(end.uses_vararg);

    let mut count = 0;
    let err = parse_chunk_each(b"a = 1\nb = 2\nc = = 3\nd = 4", "t.lua", &opts, |_| {
        count += 1;
        Ok::<(), ()>(())
    });
    match err {
        Err(EachError::Syntax(e)) => assert_eq!(e.to_string(), "t.lua:3: unexpected symbol near '='"),
        other => panic!("{other:?}"),
    }
    assert_eq!(count, 2);

    let mut count = 0;
    let err = parse_chunk_each(b"a = 1\nb = 2\nc = = 3", "t.lua", &opts, |_| {
        count += 1;
        if count == 2 {
            Err("the consumer's error")
        } else {
            Ok(())
        }
    });
    assert!(matches!(err, Err(EachError::Sink("the consumer's error"))), "{err:?}");
    assert_eq!(count, 2);

    // What `return` ends is the chunk: a statement after it is a syntax error.
    let err = parse_chunk_each(b"return 1\nx = 2", "t.lua", &opts, |_| Ok::<(), ()>(()));
    assert!(matches!(&err, Err(EachError::Syntax(e)) if e.to_string() == "t.lua:2: '<eof>' expected near 'x'"), "{err:?}");
}

/// A parse polls its out-of-memory flag at every token: once set (by an allocator that ran
/// out), the parse stops with "not enough memory", wherever it is.
#[test]
fn the_out_of_memory_flag_stops_a_parse() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: AtomicBool = AtomicBool::new(false);
    let opts = ParseOptions { out_of_memory: Some(&FLAG), ..ParseOptions::default() };
    assert!(parse_chunk_with(b"local t = {1, 2, 3}", "t.lua", &opts).is_ok());
    FLAG.store(true, Ordering::Relaxed);
    let e = parse_chunk_with(b"local t = {1, 2, 3}", "t.lua", &opts).unwrap_err();
    assert!(e.is_out_of_memory(), "{e}");
    // As lua5.1 reports it: no place, no token.
    assert_eq!(e.to_string(), "not enough memory");
    assert_eq!(e.to_bytes(), b"not enough memory");
    let mut seen = 0;
    let e = parse_chunk_each(b"x = 1\ny = 2", "t.lua", &opts, |_| {
        seen += 1;
        Ok::<(), ()>(())
    });
    assert!(matches!(&e, Err(EachError::Syntax(e)) if e.is_out_of_memory()), "{e:?}");
    assert_eq!(seen, 0);
    // A syntax error is not one.
    FLAG.store(false, Ordering::Relaxed);
    assert!(!parse_chunk_with(b"x = = 1", "t.lua", &opts).unwrap_err().is_out_of_memory());
    assert_eq!(opts, opts.clone());
    assert_ne!(opts, ParseOptions::default());
}

/// Every node of a kind is as large as its largest variant, and a large chunk's tree is
/// mostly expressions, table fields and statements: their rare large variants are boxed, and
/// this keeps them so (a data file's tree took twice its memory with a 112-byte field).
#[test]
fn tree_nodes_stay_small() {
    assert!(std::mem::size_of::<Expr>() <= 40, "Expr: {}", std::mem::size_of::<Expr>());
    assert!(std::mem::size_of::<TableField>() <= 56, "TableField: {}", std::mem::size_of::<TableField>());
    assert!(std::mem::size_of::<Stat>() <= 88, "Stat: {}", std::mem::size_of::<Stat>());
}
