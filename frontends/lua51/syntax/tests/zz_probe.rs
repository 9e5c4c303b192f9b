use lua51_syntax::parse_chunk;
use std::sync::atomic::Ordering;
#[test]
fn probe() {
    let cases: Vec<(&str, Box<dyn Fn(usize) -> String>)> = vec![
        ("paren", Box::new(|n| format!("x = {}1{}", "(".repeat(n), ")".repeat(n)))),
        ("call", Box::new(|n| format!("x = {}1{}", "f(".repeat(n), ")".repeat(n)))),
        ("method", Box::new(|n| format!("x = {}1{}", "o:m(".repeat(n), ")".repeat(n)))),
        ("index", Box::new(|n| format!("x = {}1{}", "a[".repeat(n), "]".repeat(n)))),
        ("table", Box::new(|n| format!("x = {}1{}", "{".repeat(n), "}".repeat(n)))),
        ("tablekey", Box::new(|n| format!("x = {}1{}", "{[".repeat(n), "]=1}".repeat(n)))),
        ("tablename", Box::new(|n| format!("x = {}1{}", "{a=".repeat(n), "}".repeat(n)))),
        ("unary", Box::new(|n| format!("x = {}1", "- ".repeat(n)))),
        ("concat", Box::new(|n| format!("x = 1{}", " .. 1".repeat(n)))),
        ("do", Box::new(|n| format!("{}{}", "do ".repeat(n), " end".repeat(n)))),
        ("if", Box::new(|n| format!("{}{}", "if x then ".repeat(n), " end".repeat(n)))),
        ("else", Box::new(|n| format!("{}{}", "if x then else ".repeat(n), " end".repeat(n)))),
        ("while", Box::new(|n| format!("{}{}", "while x do ".repeat(n), " end".repeat(n)))),
        ("repeat", Box::new(|n| format!("{}{}", "repeat ".repeat(n), " until x".repeat(n)))),
        ("for", Box::new(|n| format!("{}{}", "for i=1,2 do ".repeat(n), " end".repeat(n)))),
        ("forin", Box::new(|n| format!("{}{}", "for i in x do ".repeat(n), " end".repeat(n)))),
        ("func", Box::new(|n| format!("x = {}{}", "function() return ".repeat(n/2), "end ".repeat(n/2)))),
        ("lfunc", Box::new(|n| format!("{}{}", "local function f() ".repeat(n/2), "end ".repeat(n/2)))),
        ("fstat", Box::new(|n| format!("{}{}", "function f() ".repeat(n/2), "end ".repeat(n/2)))),
        ("callstat", Box::new(|n| format!("{}{}", "f(function() ".repeat(n/2), "end)".repeat(n/2)))),
    ];
    for (name, f) in cases {
        let mut per = vec![];
        for n in [20usize, 40] {
            let src = f(n);
            let base = { let m = 0u8; &m as *const u8 as usize };
            lua51_syntax::MIN_SP.store(usize::MAX, Ordering::Relaxed);
            let _ = parse_chunk(src.as_bytes(), "t");
            per.push(base - lua51_syntax::MIN_SP.load(Ordering::Relaxed));
        }
        eprintln!("{name:10} {:6} bytes/level (total at 40: {})", (per[1] - per[0]) / 20, per[1]);
    }
}
