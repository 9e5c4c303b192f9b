//! Random Lua source generation shared by the differential and robustness tests.
#![allow(dead_code)]

/// A small deterministic PRNG (xorshift64*), so test inputs are reproducible
/// without extra dependencies.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }
}

/// Tokens (valid and broken) used for insertions and token soups.
pub const TOKENS: &[&str] = &[
    "and",
    "break",
    "do",
    "else",
    "elseif",
    "end",
    "false",
    "for",
    "function",
    "if",
    "in",
    "local",
    "nil",
    "not",
    "or",
    "repeat",
    "return",
    "then",
    "true",
    "until",
    "while",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "#",
    "==",
    "~=",
    "<=",
    ">=",
    "<",
    ">",
    "=",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ":",
    ",",
    ".",
    "..",
    "...",
    "a",
    "b",
    "self",
    "arg",
    "f",
    "t",
    "x",
    "1",
    "0x1F",
    "1e5",
    ".5",
    "3.",
    "'s'",
    "\"a\\tb\"",
    "[[x]]",
    "[==[y]=]]==]",
    "[[\nz]]",
    "@",
    "$",
    "!",
    "~",
    "3x",
    "1..2",
    "'open",
    "\"\\300\"",
    "[=x",
    "--[[c]]",
    "--[[",
    "\\",
    "`",
    "\x01",
    "\x00",
    "\u{e9}",
    "\"\\0x\"",
];

const NAMES: &[&str] = &["a", "b", "c", "x", "y", "self", "arg", "t", "f", "_"];

/// Generates syntactically plausible Lua as a token list.
pub struct Gen<'r> {
    pub rng: &'r mut Rng,
    depth: usize,
    in_loop: bool,
    vararg: bool,
}

impl<'r> Gen<'r> {
    pub fn new(rng: &'r mut Rng) -> Self {
        Gen { rng, depth: 0, in_loop: false, vararg: true }
    }

    fn name(&mut self) -> String {
        self.rng.pick(NAMES).to_string()
    }

    pub fn block(&mut self, out: &mut Vec<String>) {
        let n = if self.depth > 4 { self.rng.below(2) } else { self.rng.below(4) };
        self.depth += 1;
        for _ in 0..n {
            self.stat(out);
            if self.rng.chance(20) {
                out.push(";".into());
            }
        }
        if self.rng.chance(15) {
            out.push("return".into());
            if self.rng.chance(70) {
                self.exprlist(out);
            }
        } else if self.in_loop && self.rng.chance(10) {
            out.push("break".into());
        }
        self.depth -= 1;
    }

    fn stat(&mut self, out: &mut Vec<String>) {
        let deep = self.depth > 5;
        match self.rng.below(if deep { 3 } else { 13 }) {
            0 => {
                // assignment
                self.var(out);
                while self.rng.chance(30) {
                    out.push(",".into());
                    self.var(out);
                }
                out.push("=".into());
                self.exprlist(out);
            }
            1 => self.call(out),
            2 => {
                out.push("local".into());
                out.push(self.name());
                while self.rng.chance(30) {
                    out.push(",".into());
                    out.push(self.name());
                }
                if self.rng.chance(70) {
                    out.push("=".into());
                    self.exprlist(out);
                }
            }
            3 => {
                out.push("do".into());
                self.block(out);
                out.push("end".into());
            }
            4 => {
                out.push("while".into());
                self.expr(out);
                out.push("do".into());
                self.loop_block(out);
                out.push("end".into());
            }
            5 => {
                out.push("repeat".into());
                self.loop_block(out);
                out.push("until".into());
                self.expr(out);
            }
            6 => {
                out.push("if".into());
                self.expr(out);
                out.push("then".into());
                self.block(out);
                while self.rng.chance(30) {
                    out.push("elseif".into());
                    self.expr(out);
                    out.push("then".into());
                    self.block(out);
                }
                if self.rng.chance(40) {
                    out.push("else".into());
                    self.block(out);
                }
                out.push("end".into());
            }
            7 => {
                out.extend(["for".into(), self.name(), "=".into()]);
                self.expr(out);
                out.push(",".into());
                self.expr(out);
                if self.rng.chance(30) {
                    out.push(",".into());
                    self.expr(out);
                }
                out.push("do".into());
                self.loop_block(out);
                out.push("end".into());
            }
            8 => {
                out.extend(["for".into(), self.name()]);
                while self.rng.chance(40) {
                    out.push(",".into());
                    out.push(self.name());
                }
                out.push("in".into());
                self.exprlist(out);
                out.push("do".into());
                self.loop_block(out);
                out.push("end".into());
            }
            9 => {
                out.extend(["function".into(), self.name()]);
                while self.rng.chance(30) {
                    out.extend([".".into(), self.name()]);
                }
                if self.rng.chance(30) {
                    out.extend([":".into(), self.name()]);
                }
                self.body(out);
            }
            10 => {
                out.extend(["local".into(), "function".into(), self.name()]);
                self.body(out);
            }
            _ => self.call(out),
        }
    }

    fn loop_block(&mut self, out: &mut Vec<String>) {
        let saved = self.in_loop;
        self.in_loop = true;
        self.block(out);
        self.in_loop = saved;
    }

    fn body(&mut self, out: &mut Vec<String>) {
        out.push("(".into());
        let mut vararg = false;
        if self.rng.chance(60) {
            out.push(self.name());
            while self.rng.chance(30) {
                out.push(",".into());
                out.push(self.name());
            }
            if self.rng.chance(20) {
                out.extend([",".into(), "...".into()]);
                vararg = true;
            }
        } else if self.rng.chance(30) {
            out.push("...".into());
            vararg = true;
        }
        out.push(")".into());
        let (saved_loop, saved_va) = (self.in_loop, self.vararg);
        self.in_loop = false;
        self.vararg = vararg;
        self.block(out);
        self.in_loop = saved_loop;
        self.vararg = saved_va;
        out.push("end".into());
    }

    fn var(&mut self, out: &mut Vec<String>) {
        out.push(self.name());
        while self.rng.chance(30) {
            if self.rng.chance(50) {
                out.extend([".".into(), self.name()]);
            } else {
                out.push("[".into());
                self.expr(out);
                out.push("]".into());
            }
        }
    }

    fn call(&mut self, out: &mut Vec<String>) {
        self.var(out);
        if self.rng.chance(30) {
            out.extend([":".into(), self.name()]);
        }
        self.args(out);
    }

    fn args(&mut self, out: &mut Vec<String>) {
        match self.rng.below(4) {
            0 => out.push(self.rng.pick(&["'s'", "[[long]]", "\"q\""]).to_string()),
            1 => self.table(out),
            _ => {
                out.push("(".into());
                if self.rng.chance(70) {
                    self.exprlist(out);
                }
                out.push(")".into());
            }
        }
    }

    fn table(&mut self, out: &mut Vec<String>) {
        out.push("{".into());
        let n = self.rng.below(4);
        for i in 0..n {
            match self.rng.below(3) {
                0 => {
                    out.extend([self.name(), "=".into()]);
                    self.expr(out);
                }
                1 => {
                    out.push("[".into());
                    self.expr(out);
                    out.extend(["]".into(), "=".into()]);
                    self.expr(out);
                }
                _ => self.expr(out),
            }
            if i + 1 < n || self.rng.chance(30) {
                out.push(self.rng.pick(&[",", ";"]).to_string());
            }
        }
        out.push("}".into());
    }

    fn exprlist(&mut self, out: &mut Vec<String>) {
        self.expr(out);
        while self.rng.chance(30) {
            out.push(",".into());
            self.expr(out);
        }
    }

    pub fn expr(&mut self, out: &mut Vec<String>) {
        self.depth += 1;
        if self.rng.chance(20) && self.depth < 8 {
            out.push(self.rng.pick(&["not", "-", "#"]).to_string());
        }
        self.simple(out);
        while self.depth < 8 && self.rng.chance(30) {
            out.push(self.rng.pick(&["+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">=", "and", "or"]).to_string());
            self.simple(out);
        }
        self.depth -= 1;
    }

    fn simple(&mut self, out: &mut Vec<String>) {
        let deep = self.depth > 6;
        match self.rng.below(if deep { 6 } else { 12 }) {
            0 => out.push(self.rng.pick(&["nil", "true", "false"]).to_string()),
            1 => out.push(self.rng.pick(&["1", "2.5", "0x10", "1e3", ".5", "3."]).to_string()),
            2 => out.push(self.rng.pick(&["'a'", "\"b\\n\"", "[[c]]", "[=[d]=]"]).to_string()),
            // Mostly only where allowed, sometimes anywhere.
            3 if self.vararg || self.rng.chance(10) => out.push("...".into()),
            3..=5 => self.var(out),
            6 => self.table(out),
            7 => {
                out.push("function".into());
                self.body(out);
            }
            8 => {
                out.push("(".into());
                self.expr(out);
                out.push(")".into());
            }
            _ => self.call(out),
        }
    }
}

/// Joins tokens with random separators (spaces, newlines of every style,
/// comments), so lines and the ambiguous-call rule get exercised.
pub fn join(rng: &mut Rng, tokens: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 {
            let sep: &[u8] = match rng.below(20) {
                0 => b"\n",
                1 => b"\r\n",
                2 => b"\n\r",
                3 => b" -- c\n",
                4 => b" --[[ c\n]] ",
                5 => b"\t",
                6 => b"\r",
                _ => b" ",
            };
            out.extend_from_slice(sep);
        }
        out.extend_from_slice(t.as_bytes());
    }
    out
}

/// A random program, possibly mutated into an invalid one.
pub fn program(rng: &mut Rng) -> Vec<u8> {
    let mut tokens = Vec::new();
    Gen::new(rng).block(&mut tokens);
    let mutations = match rng.below(4) {
        0 => 0,
        1 => 1,
        2 => 2,
        _ => rng.below(5),
    };
    for _ in 0..mutations {
        let len = tokens.len();
        match rng.below(6) {
            0 if len > 0 => {
                tokens.remove(rng.below(len));
            }
            1 => {
                let t = rng.pick(TOKENS).to_string();
                tokens.insert(rng.below(len + 1), t);
            }
            2 if len > 0 => {
                let i = rng.below(len);
                tokens[i] = rng.pick(TOKENS).to_string();
            }
            3 if len > 1 => {
                let i = rng.below(len - 1);
                tokens.swap(i, i + 1);
            }
            4 if len > 0 => {
                tokens.truncate(rng.below(len));
            }
            _ => {
                if len > 0 {
                    let i = rng.below(len);
                    let t = tokens[i].clone();
                    tokens.insert(i, t);
                }
            }
        }
    }
    join(rng, &tokens)
}

/// A random sequence of tokens: mostly invalid programs.
pub fn token_soup(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(12);
    let tokens: Vec<String> = (0..n).map(|_| rng.pick(TOKENS).to_string()).collect();
    join(rng, &tokens)
}

/// Random bytes, biased towards Lua-relevant characters.
pub fn garbage(rng: &mut Rng) -> Vec<u8> {
    const BIASED: &[u8] = b"[]=-'\"\\\n\r.0123456789xXeE+abcdefghijklmnopqrstuvwxyz(){};:,#~<>^%*/ \t\0";
    let n = rng.below(40);
    let mut bytes: Vec<u8> = (0..n).map(|_| if rng.chance(80) { *rng.pick(BIASED) } else { rng.below(256) as u8 }).collect();
    // A leading ESC marks a precompiled chunk, which lua5.1 hands to its
    // undumper instead of the parser; that is the loader's business.
    if bytes.first() == Some(&0x1b) {
        bytes[0] = b' ';
    }
    bytes
}

/// Valid programs covering the whole grammar, for prefix truncation.
pub const VALID_PROGRAMS: &[&str] = &[
    r#"#!/usr/bin/env lua
local a, b = 1, "two"
local t = { 1, 2; x = 3, ["y"] = 4, [5] = { nested = true }, f(), ... }
function t.m:method(x, ...) return self, x, ... end
local function fact(n) if n <= 1 then return 1 else return n * fact(n - 1) end end
for i = 1, 10, 2 do a = a + i end
for k, v in pairs(t) do print(k, v) end
while a > 0 do a = a - 1 if a == 5 then break end end
repeat local done = a < 0 until done
do local x = -2 ^ -3 .. 'x' .. [[long
string]] end
print(#t, not a, a and b or nil, (f()), t.x.y:z "s" {1})
x, y.z, w[1] = 0x1F, 1e-3, .5
return a, b
"#,
    "local s = 'esc\\n\\t\\\\\\'\\\"\\065\\0' .. \"x\" .. [==[a]]b]==]\n--[[ comment ]] -- line\nreturn s",
    "if a then elseif b then else end while true do end repeat until false",
    "f{a = function(...) return ... end}:g'x'[1].h(2)(3)",
];
