//! Differential fuzzing: random Lua programs are run on the implementation and on `lua5.1`,
//! and must print the same thing.
//!
//! Programs mix every kind of value (numbers including `-0`, infinities, numeric and other
//! strings, booleans, nil, tables, functions) in arithmetic and coercions, comparisons,
//! concatenation, logic, indexing, calls, control flow and closures. Every top-level statement
//! runs under `pcall` and prints what it got, errors included, so one error does not end the
//! program and error messages (with their variable names and positions) are compared too.
//! Values without a stable text (tables, functions, userdata, threads) print as their type.
//!
//! Crashes hide where values meet the runtime's calls of Lua code, so programs also use
//! metatables whose handlers are every kind of value (functions, native functions, tables and
//! userdata with `__call`, callable booleans and numbers, values that cannot be called), yield
//! inside and outside 5.1's C-call boundary, raise errors whose values are not strings under
//! message handlers of every kind, and recurse past the stack's and 5.1's nesting limits.
//!
//! JIT bugs hide where a cache remembers what the program then changes, so programs also run
//! field, method, store and global sites many times over objects of several hidden classes
//! (filling inline caches, chaining stubs, going megamorphic) while they remove and add
//! fields, grow tables into dictionaries, swap metatables and replace or shadow methods; and
//! they traverse tables while clearing and changing their fields. Library functions are called
//! with random arguments, so every argument check (and which argument is checked first) meets
//! 5.1's.
//!
//! A program is a pure function of its seed: a failure is reproduced from its seed alone.

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use crate::process::{run, Invocation};

/// xorshift64*: small, fast, and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// `NZ` is `-0` made at run time: a literal `-0` shares lua5.1's constant slot with a `0` of the
/// same function, and which sign both print depends on the order 5.1's code generator adds
/// them (a documented difference; the corpus checks `-0` where it is defined).
const LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "0.5",
    "-2.5",
    "10",
    "1e15",
    "1e300",
    "math.huge",
    "-math.huge",
    "NZ",
    "(0/0)",
    "\"\"",
    "\"a\"",
    "\"abc\"",
    "\"10\"",
    "\" 3 \"",
    "\"0x10\"",
    "\"1e2\"",
    "\"x\"",
    "true",
    "false",
    "nil",
];
const LOCALS: &[&str] = &["a", "b", "c", "d", "s", "t", "u", "m"];
const BINARY: &[&str] = &["+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">=", "and", "or"];

/// Handler values for metamethods and message handlers (see `Gen::handler`). `CT`, `CU` and
/// the callable booleans and numbers are set up by the program's prelude.
const HANDLERS: &[&str] = &[
    "function(...) return select('#', ...), ... end",
    "function(a) return a end",
    "function() error('in handler') end",
    "function() error({}) end",
    "type",
    "select",
    "math.max",
    "rawequal",
    "CT",
    "CU",
    "true",
    "7",
    "false",
    "nil",
    "{}",
    "setmetatable({}, {__call = CT})",
    "'str'",
];

/// An event and a use of it on `o`/`o2` (two objects sharing the metatable), `ud` (a userdata
/// with the same handler) and `x` (a random value).
const METAMETHOD_USES: &[(&str, &str)] = &[
    ("__add", "return o + x"),
    ("__add", "return x + o"),
    ("__sub", "return o - o2"),
    ("__mul", "return 2 * o"),
    ("__div", "return o / x"),
    ("__mod", "return o % 3"),
    ("__pow", "return x ^ o"),
    ("__unm", "return -o"),
    ("__concat", "return o .. x"),
    ("__concat", "return 'a' .. o .. 'b'"),
    ("__len", "return #ud"),
    ("__eq", "return o == o2, o ~= o2"),
    ("__lt", "return o < o2, o > o2"),
    ("__lt", "return o <= o2"),
    ("__le", "return o <= o2, o >= o2"),
    ("__lt", "if o < o2 then return 'then' else return 'else' end"),
    ("__index", "return o.key, o[x]"),
    ("__index", "return o:method(x)"),
    ("__index", "return ud.key"),
    ("__index", "setfenv(1, o) return missing_global"),
    ("__newindex", "o.key = x return rawget(o, 'key')"),
    ("__newindex", "o[1] = x return rawget(o, 1)"),
    ("__newindex", "ud.key = x"),
    ("__call", "return o(x, 2)"),
    ("__call", "return select('#', o(x))"),
    ("__call", "return (o(x))"),
    ("__call", "for k in o do return k end"),
    ("__call", "return pcall(o, x)"),
    // Without a handler the text is an address, which differs from run to run.
    ("__tostring", "local s = tostring(o) if type(s) == 'string' then s = s:gsub('0x%x+', 'ADDR') end return s"),
    ("__index", "return rawget(o, 'key'), rawequal(o, o2)"),
];

/// Library functions called with random arguments (see `Gen::library_statement`): every
/// argument check and error message of theirs is compared with 5.1's, and native code must
/// refuse bad input with an error, never a crash. (Functions whose results depend on the
/// clock, the environment or a generator's sequence are left out, and `string.rep` is called
/// with small counts elsewhere: a random count could ask for petabytes.)
const LIBRARY_FUNCTIONS: &[&str] = &[
    "string.byte",
    "string.char",
    "string.find",
    "string.format",
    "string.gmatch",
    "string.gsub",
    "string.len",
    "string.lower",
    "string.match",
    "string.reverse",
    "string.sub",
    "string.upper",
    "table.concat",
    "table.insert",
    "table.maxn",
    "table.remove",
    "table.sort",
    "table.getn",
    "math.abs",
    "math.ceil",
    "math.floor",
    "math.fmod",
    "math.modf",
    "math.frexp",
    "math.ldexp",
    "math.max",
    "math.min",
    "math.pow",
    "math.sqrt",
    "math.log",
    "math.log10",
    "math.exp",
    "math.deg",
    "math.rad",
    "tonumber",
    "select",
    "unpack",
    "rawget",
    "rawset",
    "rawequal",
    "next",
    "type",
    "getmetatable",
    "setmetatable",
    "ipairs",
    "pairs",
    "error",
    "assert",
    "coroutine.resume",
    "coroutine.status",
    "coroutine.wrap",
    "coroutine.create",
    "string.format",
    "tostring",
    "loadstring",
    "xpcall",
    "getfenv",
    "newproxy",
    "table.foreach",
    "table.foreachi",
    "table.setn",
    "math.sin",
    "math.cos",
    "math.tan",
    "math.asin",
    "math.acos",
    "math.atan",
    "math.sinh",
    "math.cosh",
    "math.tanh",
];

/// Where a coroutine body yields (see `Gen::coroutine_statement`).
const YIELD_PLACES: &[&str] = &[
    "return coroutine.yield(1)",
    "return setmetatable({}, {__call = function(_, v) return coroutine.yield(v) end})('c')",
    "return setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end}).k",
    "return setmetatable({}, {__add = function() return coroutine.yield('add') end}) + 1",
    "return setmetatable({}, {__concat = function() return coroutine.yield('cat') end}) .. 'x'",
    "return setmetatable({}, {__lt = function() return coroutine.yield('lt') end}) < setmetatable({}, getmetatable(CT))",
    "for v in function() return coroutine.yield('iter') end do return v end",
    "return pcall(coroutine.yield, 'in pcall')",
    "return table.sort({3, 1, 2}, function(a, b) coroutine.yield('sort') return a < b end)",
    "return string.gsub('ab', '%w', function(c) return coroutine.yield(c) end)",
    "local t = setmetatable({}, {__index = function() error('e') end}) pcall(function() return t.x end) return coroutine.yield('after')",
];

/// Recursive functions `r(n)` (see `Gen::recursion_statement`).
const RECURSIONS: &[&str] = &[
    "function(n) return 1 + r(n + 1) end",
    "function(n) local t = setmetatable({}, {__index = function() return r(n + 1) end}) return t.x end",
    "function(n) return setmetatable({}, {__add = function() return r(n + 1) end}) + 1 end",
    "function(n) for v in function() return r(n + 1) end do return v end end",
    "function(n) return pcall(r, n + 1) end",
    "function(n) return (select(2, pcall(r, n + 1))) end",
    "function(n) local s = string.gsub('x', 'x', function() return r(n + 1) end) return s end",
    "function(n) return tostring(setmetatable({}, {__tostring = function() return r(n + 1) end})) end",
    "function(n) if n > 100000 then return n end return r(n + 1) end",
    "function(n) local co = coroutine.wrap(r) return co(n + 1) end",
];

/// Values an inline-cache site meets in turn (see `Gen::ic_statement`): tables of several
/// hidden classes with and without metatables, instances of the classes `A`, `B` (a subclass
/// of `A`) and `D` (of `B`), a dictionary-mode table, `__index` functions, a `__newindex`
/// handler, and values that are not tables.
const IC_OBJECTS: &[&str] = &[
    "{x = 1, y = 2}",
    "{y = 'only y'}",
    "{}",
    "{x = nil, y = 'init nil'}",
    "setmetatable({x = 'ax'}, A)",
    "setmetatable({x = 'ax2', z = 3}, A)",
    "setmetatable({y = 'by'}, B)",
    "setmetatable({}, D)",
    "setmetatable({}, {__index = function(t, k) return tostring(k) .. '!' end})",
    "setmetatable({}, {__index = A, __newindex = function(t, k, v) rawset(t, k, type(v) == 'string' and v .. '?' or type(v)) end})",
    "(function() local d = setmetatable({}, B) for j = 1, 70 do d['f' .. j] = j end d.x = 'dict x' return d end)()",
    "(function() local d = {} for j = 1, 70 do d['f' .. j] = j end d.f3 = nil return d end)()",
    "{1, 2, 3, x = 'arr'}",
    "'str'",
    "5",
    "newproxy(true)",
];

/// What a program changes while its sites run (see `Gen::ic_statement`): `o` is the object
/// the loop is at, `step` counts the loop's turns.
const IC_MUTATIONS: &[&str] = &[
    "if type(o) == 'table' then o.x = nil end",
    "if type(o) == 'table' then o.x = nil o.x = 'back' end",
    "if type(o) == 'table' then o['w' .. step % 3] = step end",
    "if type(o) == 'table' then for j = 1, 70 do rawset(o, 'g' .. j, j) end end",
    "if type(o) == 'table' then for j = 1, 70 do o['h' .. j] = nil end o.y = nil end",
    "if type(o) == 'table' then rawset(o, 'get', function() return 'own get' end) end",
    "if type(o) == 'table' then rawset(o, 'x', step) rawset(o, 'who', nil) end",
    "if type(o) == 'table' then setmetatable(o, B) end",
    "if type(o) == 'table' then setmetatable(o, nil) end",
    "if type(o) == 'table' then setmetatable(o, {__index = D}) end",
    "if type(o) == 'table' then o[1] = step o[2] = 'two' o[#o + 1] = true end",
    "A.get = function(self) return 'replaced', rawget(self, 'x') end",
    "A.get = nil",
    "B.get = nil",
    "B.get = function() return 'B again' end",
    "A.who = 'not a function'",
    "A.__index = function(t, k) return 'fn:' .. tostring(k) end",
    "B.__index = A",
    "setmetatable(A, {__index = function(t, k) return 'deep:' .. tostring(k) end})",
    "getmetatable(B).__index = D",
    "A.kind, B.kind = nil, 'B2'",
    "A.__newindex = function(t, k, v) rawset(t, k, 'via newindex') end",
    "gx = step",
    "gx = nil",
    "collectgarbage()",
    "setmetatable(_G, {__index = function(_, k) return 'G:' .. k end})",
    "setmetatable(_G, {__newindex = function(t, k, v) rawset(t, k, type(v)) end})",
    "setmetatable(_G, nil) rawset(_G, 'gx', nil)",
];

/// Table contents a traversal starts from (see `Gen::traversal_statement`): array parts with
/// and without holes, named fields, a dictionary, number, boolean and float keys.
const TRAVERSED: &[&str] = &[
    "{1, 2, 3}",
    "{1, nil, 3, nil, 5}",
    "{x = 1, y = 2, z = 3}",
    "{10, 20, x = 'a', [2.5] = 'f', [true] = 'b', [-1] = 'n'}",
    "(function() local d = {} for j = 1, 80 do d['k' .. j] = j end return d end)()",
    "(function() local d = {} for j = 1, 40 do d[j * 3] = j end return d end)()",
    "{}",
];

/// What a traversal does to its table at each step (what 5.1 allows: clearing or changing
/// existing fields), or what it calls.
const TRAVERSAL_STEPS: &[&str] =
    &["", "t[k] = nil", "t[k] = 'changed'", "if type(v) == 'number' and v % 2 == 0 then t[k] = nil end", "collectgarbage()"];

struct Gen {
    rng: Rng,
    out: String,
    indent: usize,
}

impl Gen {
    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 {
            return self.leaf();
        }
        match self.rng.below(12) {
            0..=4 => {
                let op = self.rng.pick(BINARY);
                format!("({} {op} {})", self.expr(depth - 1), self.expr(depth - 1))
            }
            5 => {
                let op = self.rng.pick(&["-", "not ", "#"]);
                format!("({op}{})", self.expr(depth - 1))
            }
            6 => {
                let f = self.rng.pick(&["show", "type", "tonumber", "f1", "f2", "math.floor", "string.len", "select('#',", "v", "m"]);
                if f.ends_with(',') {
                    format!("{f} {}, {})", self.expr(depth - 1), self.expr(depth - 1))
                } else {
                    format!("{f}({})", self.expr(depth - 1))
                }
            }
            7 => format!("t[{}]", self.expr(depth - 1)),
            8 => format!("t.{}", self.rng.pick(&["x", "y", "n"])),
            9 => format!("({} and {} or {})", self.expr(depth - 1), self.expr(depth - 1), self.expr(depth - 1)),
            10 => format!("#t + {}", self.expr(depth - 1)),
            _ => self.leaf(),
        }
    }

    fn leaf(&mut self) -> String {
        if self.rng.below(2) == 0 {
            self.rng.pick(LITERALS).to_owned()
        } else {
            self.rng.pick(LOCALS).to_owned()
        }
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(self.indent));
    }

    fn statement(&mut self, depth: usize) {
        match self.rng.below(if depth == 0 { 4 } else { 25 }) {
            0 | 1 => {
                let (e1, e2) = (self.expr(3), self.expr(2));
                self.line(&format!("P({e1}, {e2})"));
            }
            2 => {
                let (v, e) = (self.rng.pick(&["a", "b", "c", "d", "s"]), self.expr(3));
                self.line(&format!("{v} = {e}"));
            }
            3 => {
                // Writes go to `w`: `#` of a table with holes may be any border, and lua5.1's
                // choice follows its own array sizing; `#t` stays well defined.
                let (k, v) = (self.expr(1), self.expr(2));
                self.line(&format!("w[{k}] = {v} P(w[{k}])"));
            }
            4 => {
                let c = self.expr(2);
                self.line(&format!("if {c} then"));
                self.block(depth - 1);
                self.line("else");
                self.block(depth - 1);
                self.line("end");
            }
            5 => {
                let (from, to) = (self.rng.below(4) as i64 - 1, self.rng.below(6) as i64);
                let step = self.rng.pick(&["1", "2", "-1", "0.5"]);
                let var = self.rng.pick(&["i", "j"]);
                // Bounds computed by calls leave call frames behind the control slots, and
                // arithmetic on upvalues leaves scratch slots there.
                let to = match self.rng.below(5) {
                    0 => format!("math.max({to}, 0)"),
                    1 => format!("select(2, 0, {to})"),
                    2 => format!("(function() return {to} end)()"),
                    3 => format!("#u - #u + {to}"),
                    _ => to.to_string(),
                };
                let from = match self.rng.below(4) {
                    0 => format!("tonumber(\"{from}\")"),
                    1 => format!("#u * 0 + {from}"),
                    _ => from.to_string(),
                };
                self.line(&format!("for {var} = {from}, {to}, {step} do"));
                self.indent += 1;
                let e = self.expr(1);
                self.line(&format!("P({var}, {e})"));
                self.indent -= 1;
                self.block(depth - 1);
                self.line("end");
            }
            6 => {
                let n = self.rng.below(4);
                self.line(&format!("do local k = 0 while k < {n} do k = k + 1"));
                self.block(depth - 1);
                self.line("end end");
            }
            7 => {
                let (e1, e2) = (self.expr(2), self.expr(2));
                let (x, y) = (self.expr(1), self.expr(1));
                self.line(&format!("u = function(x, y) return {e1}, x, {e2} end P(u({x}, {y}))"));
            }
            8 => {
                let e = self.expr(2);
                self.line(&format!("P(pcall(error, {e}))"));
            }
            9 => {
                let (x, y) = (self.expr(2), self.expr(1));
                self.line(&format!("P(v({x}, f2({y})))"));
                self.line(&format!("P(select(2, v({x}, f1({y}))))"));
            }
            10 => {
                let (n, e) = (1 + self.rng.below(4), self.expr(1));
                self.line(&format!("do local fs = {{}} for i = 1, {n} do local j = i * 2 fs[i] = function(z) j = j + 1 return i, j, z end end"));
                self.line(&format!("  P(fs[1]({e})) P(fs[{n}]()) P(fs[1]()) end"));
            }
            11 => {
                let (i, j) = (self.rng.below(7) as i64 - 3, self.rng.below(7) as i64 - 3);
                let (e, r) = (self.expr(1), self.rng.below(3));
                self.line(&format!("P(string.sub(show({e}), {i}, {j}), (\"ab\"):rep({r}), string.upper(show({e})), string.byte(\"xyz\", {i}))"));
            }
            12 if self.rng.below(4) == 1 => {
                // `return ...` alone, and targets whose key or table is assigned alongside.
                let (x, y) = (self.expr(1), self.expr(1));
                self.line(&format!("P((function(...) return ... end)({x}, nil, {y}))"));
                self.line(&format!("do local t, k, o = {{}}, 1, {{}} t[k], k = {x}, 2 o.f, o = {y}, {{}} P(t[1], t[2], k, o.f) end"));
            }
            12 if self.rng.below(4) == 0 => {
                // Deep tail recursion through a vararg function (frames must not climb).
                let e = self.expr(1);
                self.line(&format!("do local function vt(n, ...) if n == 0 then return select('#', ...), ... end return vt(n - 1, ...) end P(vt(150000, {e}, 2)) end"));
            }
            12 => {
                let n = self.rng.below(4);
                let e = self.expr(1);
                self.line(&format!("do local g = coroutine.wrap(function(q) for k = 1, {n} do q = coroutine.yield(k, q) end return 'done', q end)"));
                self.line(&format!("  P(g({e})) P(g(1)) P(pcall(g, 2)) end"));
            }
            13 => {
                let spec = self.rng.pick(&["%d", "%5.2f", "%s", "%q", "%x", "%g", "%-6s|", "%+.3e", "%c", "%05i", "%o", "%10.4s", "%y"]);
                let pat =
                    self.rng.pick(&["%a+", "(%d)(%d?)", "^%s*(.-)%s*$", "[%w_]+", "%f[%a]", "(a)%1", "%b()", ".-", "[^,]*", "%", "[a", "()x()"]);
                let (x, y) = (self.expr(1), self.expr(1));
                self.line(&format!("P(pcall(string.format, \"<{spec}>\", {x}))"));
                self.line(&format!("P(pcall(string.find, show({y}), \"{pat}\"))"));
                self.line(&format!("P(pcall(string.gsub, show({x}) .. \" (a1) b2\", \"{pat}\", \"<%0>\"))"));
                self.line(&format!("P(pcall(string.match, show({y}), \"{pat}\", 2))"));
            }
            20 | 21 => self.ic_statement(),
            22 => self.traversal_statement(),
            23 | 24 => self.library_statement(),
            15 => self.metamethod_statement(),
            16 => self.coroutine_statement(),
            17 => self.error_value_statement(),
            18 => self.recursion_statement(),
            19 => {
                // Calling any value, in the call forms whose caches differ (a value the
                // cache's empty key could match, like the number 0, must still be an error).
                let (f, x) = (self.expr(1), self.expr(1));
                self.line(&format!("do local g = {f} P(pcall(function() return g({x}) end)) P(pcall(function() local r = g() return r end)) P(pcall(function() t.g = g return t:g() end)) end"));
            }
            _ => {
                let (x, y) = (self.expr(1), self.expr(1));
                self.line(&format!("P(m + {x}, {x} .. m, m.key, m({y}), m == m, pcall(function() return m < {y} end))"));
            }
        }
    }

    /// A value a metatable may hold as a handler: every kind 5.1 distinguishes when it calls
    /// one (Lua and native functions, a table or userdata with `__call`, values of types whose
    /// shared metatable may have `__call`, and values that cannot be called).
    fn handler(&mut self) -> &'static str {
        self.rng.pick(HANDLERS)
    }

    /// One metamethod event of a fresh object with a random handler.
    fn metamethod_statement(&mut self) {
        let (event, op) = METAMETHOD_USES[self.rng.below(METAMETHOD_USES.len())];
        let (h, x) = (self.handler(), self.expr(1));
        self.line(&format!("do local mt = {{{event} = {h}}} local o, o2 = setmetatable({{}}, mt), setmetatable({{}}, mt)"));
        self.line(&format!("  local ud = newproxy(true) getmetatable(ud).{event} = mt.{event} local x = {x}"));
        self.line(&format!("  P(pcall(function() {op} end)) end"));
    }

    /// A coroutine that yields in places 5.1 allows (plain calls, `__call` handlers) and in
    /// places it refuses (metamethods, iterators, native callbacks), then is resumed again.
    fn coroutine_statement(&mut self) {
        let place = self.rng.pick(YIELD_PLACES);
        let x = self.expr(1);
        self.line("do local co = coroutine.create(function(q)");
        self.line(&format!("  local r = {{pcall(function() {place} end)}} P(unpack(r, 1, 3)) return 'end', coroutine.yield('again', q)"));
        self.line(&format!("end) P(coroutine.resume(co, {x})) P(coroutine.resume(co, 1)) P(coroutine.resume(co, 2)) P(coroutine.status(co)) end"));
    }

    /// Errors whose values are not strings, levels, and message handlers of every kind.
    fn error_value_statement(&mut self) {
        let (x, h) = (self.expr(1), self.handler());
        let level = self.rng.below(4);
        match self.rng.below(3) {
            0 => self.line(&format!("P(pcall(error, {x}, {level})) P(pcall(error)) P(select('#', pcall(error, nil)))")),
            1 => self.line(&format!("P(xpcall(function() error({x}, {level}) end, {h}))")),
            _ => self.line(&format!("P(pcall(function() local t = setmetatable({{}}, {{__index = function() error({x}) end}}) return t.k end))")),
        }
    }

    /// The same field, method, store and global sites run again and again over objects of
    /// several hidden classes (so their inline caches fill, chain stubs in JIT code and go
    /// megamorphic), while the program changes what the caches remember: fields removed and
    /// added, a table grown into dictionary mode, metatables swapped, methods replaced, removed
    /// or shadowed, `__index` turned into a function or into a loop, globals set and cleared.
    fn ic_statement(&mut self) {
        let count = 2 + self.rng.below(5);
        let objects: Vec<&str> = (0..count).map(|_| self.rng.pick(IC_OBJECTS)).collect();
        let mutation = self.rng.pick(IC_MUTATIONS);
        let rounds = 2 + self.rng.below(4);
        // The change happens once, at one turn, or at every `every`-th turn.
        let (when, every) = if self.rng.below(3) == 0 { (0, 1 + self.rng.below(3)) } else { (1 + self.rng.below(rounds * count), 0) };
        let v = self.expr(1);
        self.line("do local A = {kind = 'A'} A.__index = A function A:get() return self.x end function A.who() return 'A' end");
        self.line("  local B = setmetatable({kind = 'B'}, {__index = A}) B.__index = B function B:get() return self.y, self.kind end");
        self.line("  local D = setmetatable({}, {__index = B}) D.__index = D function D.who(self) return 'D', self.x end");
        self.line(&format!("  local os, step = {{{}}}, 0", objects.join(", ")));
        self.line(&format!("  for r = 1, {rounds} do for i = 1, #os do local o = os[i] step = step + 1"));
        if every > 0 {
            self.line(&format!("    if step % {every} == 0 then {mutation} end"));
        } else {
            self.line(&format!("    if step == {when} then {mutation} end"));
        }
        self.line("    P(pcall(function() return o.x, o.y, o.kind, o[1] end))");
        self.line("    P(pcall(function() return o:get() end)) P(pcall(function() return o:who() end))");
        self.line(&format!("    P(pcall(function() o.y = {v} o.n = step return rawget(o, 'y'), o.n, gx end))"));
        self.line("  end end end");
    }

    /// A traversal (`pairs`, `next` by hand, or `next` as the iterator) that changes its
    /// table as 5.1 allows; the keys it saw are printed sorted, since the order is the
    /// implementation's.
    fn traversal_statement(&mut self) {
        let (init, step) = (self.rng.pick(TRAVERSED), self.rng.pick(TRAVERSAL_STEPS));
        let head = self.rng.pick(&["for k, v in pairs(t) do", "for k, v in next, t do", "for k, v in next, t, nil do"]);
        self.line(&format!("do local t, n, seen = {init}, 0, {{}} {head} n = n + 1 seen[#seen + 1] = tostring(k) .. '=' .. show(v) {step} end"));
        self.line("  table.sort(seen) P(n, table.concat(seen, ' ')) local m, k = 0, next(t) while k ~= nil do m = m + 1 k = next(t, k) end P(m) end");
    }

    /// A library function called with zero to three random arguments, its results (or its
    /// error) printed; strings with an address in them (`tostring` of a table) are masked.
    fn library_statement(&mut self) {
        let f = self.rng.pick(LIBRARY_FUNCTIONS);
        let args: Vec<String> = (0..self.rng.below(4)).map(|_| self.expr(1)).collect();
        self.line(&format!("P(C({f}{}{}))", if args.is_empty() { "" } else { ", " }, args.join(", ")));
    }

    /// Recursion past the stack's or 5.1's nesting limits, through Lua calls, metamethods,
    /// iterators and native callbacks; the program goes on afterwards.
    fn recursion_statement(&mut self) {
        let body = self.rng.pick(RECURSIONS);
        self.line(&format!("do local r r = {body} P(pcall(r, 1)) P(pcall(r, 1)) end"));
    }

    fn block(&mut self, depth: usize) {
        self.indent += 1;
        for _ in 0..1 + self.rng.below(3) {
            self.statement(depth);
        }
        self.indent -= 1;
    }
}

/// The program for `seed`.
pub fn program(seed: u64) -> String {
    let mut g = Gen { rng: Rng::new(seed), out: String::new(), indent: 0 };
    g.out.push_str(
        "local function show(v) local ty = type(v) if ty == 'table' or ty == 'function' or ty == 'userdata' or ty == 'thread' then return ty end return tostring(v) end\n\
         local function P(...) local n = select('#', ...) local o = {} for i = 1, n do o[i] = show((select(i, ...))) end print(n, table.concat(o, ' ')) end\n\
         local function f1(x) return x, x end\n\
         local function f2(x) if x then return end return 1, 2, 3 end\n\
         local t = {1, 2, 'three', x = 5, [10] = 'ten'}\n\
         local w = {}\n\
         local function v(...) return select('#', ...), ... end\n\
         local m = setmetatable({}, {__add = function(x, y) return 'add' end, __concat = function(x, y) return 'cat' end,\n\
           __index = function(_, k) return k end, __call = function(self, z) return 'called', z end,\n\
           __lt = function() return true end, __eq = function() return false end})\n\
         local CT = setmetatable({}, {__call = function(self, ...) return 'CT', ... end, __lt = function() return true end})\n\
         local CU = newproxy(true) getmetatable(CU).__call = function(self, ...) return 'CU', ... end\n\
         local NZ do local zero = 0 NZ = -zero end\n\
         local function C(f, ...) return (function(...) local n, o = select('#', ...), {...} for i = 1, n do if type(o[i]) == 'string' then o[i] = (o[i]:gsub('0x%x+', 'ADDR')) end end return unpack(o, 1, n) end)(pcall(f, ...)) end\n",
    );
    // Half the programs make booleans and numbers callable, as `debug.setmetatable` allows.
    if g.rng.below(2) == 0 {
        g.out.push_str(
            "debug.setmetatable(true, {__call = function(self, ...) return 'bool', self, ... end})\n\
             debug.setmetatable(0, {__call = function(self, ...) return 'num', self, ... end})\n",
        );
    }
    let inits: Vec<String> = LOCALS.iter().filter(|l| **l != "t").map(|_| g.leaf()).collect();
    let _ = writeln!(g.out, "local a, b, c, d, s, u = {}, {}, {}, {}, {}, {}", inits[0], inits[1], inits[2], inits[3], inits[4], inits[5]);
    for _ in 0..12 {
        g.line("do local ok, e = pcall(function()");
        g.indent += 1;
        g.statement(2);
        g.indent -= 1;
        g.line("end) if not ok then print('error', e) end end");
    }
    g.out
}

/// Error messages with the variable part dropped: `on local 'x' (a nil value)` becomes
/// `on a nil value`.
///
/// lua5.1 names an operand after the bytecode instruction that last wrote its register, found by
/// symbolic execution of *its* code, including how it lays out jumps for `and`/`or` chains.
/// The differential corpus checks names exactly for what programs write; random nested
/// `and`/`or` operands would only keep finding that layout, so the fuzzer compares the rest.
pub fn without_variable_names(output: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(output);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut line = line.to_owned();
        for kind in ["local", "global", "upvalue", "field", "method"] {
            let pattern = format!(" {kind} '");
            while let Some(start) = line.find(&pattern) {
                // " kind 'name' (a TYPE value)" -> " a TYPE value"
                let after_name = start + pattern.len();
                let Some(close) = line[after_name..].find("' (a ").map(|i| after_name + i) else { break };
                let type_start = close + "' (a ".len();
                let Some(type_end) = line[type_start..].find(" value)").map(|i| type_start + i) else { break };
                let replacement = format!(" a {} value", &line[type_start..type_end]);
                line.replace_range(start..type_end + " value)".len(), &replacement);
            }
        }
        out.push_str(&line);
    }
    out.into_bytes()
}

/// Output as the fuzzer compares it: without variable names in error messages, and with NaN's
/// sign dropped. Which NaN an operation on *two* NaNs returns is unspecified (IEEE 754, C, LLVM
/// IR alike); x86 returns the first operand's, and LLVM may commute `fadd`/`fmul`, so `nan` vs
/// `-nan` there says nothing about the VM. The corpus checks the sign where it is defined
/// (`basic/arith/nan_sign.lua`).
fn comparable(output: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(&without_variable_names(output)).replace("-nan", "nan").into_bytes()
}

/// Runs the program of `seed` on `ljr` and `lua5.1` in `workdir`; `Err` describes a difference.
pub fn check_seed(ljr: &Path, flags: &[&str], workdir: &Path, seed: u64) -> Result<(), String> {
    let source = program(seed);
    let file = workdir.join(format!("fuzz-{seed}.lua"));
    std::fs::write(&file, &source).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let run_on = |program: &Path, flags: &[&str]| {
        let mut args: Vec<std::ffi::OsString> = flags.iter().map(Into::into).collect();
        args.push(file.clone().into_os_string());
        run(&Invocation {
            program: program.to_path_buf(),
            args,
            cwd: workdir.to_path_buf(),
            stdin: None,
            timeout: Duration::from_secs(20),
            env: Vec::new(),
        })
        .map_err(|e| e.to_string())
    };
    let reference = run_on(Path::new(crate::REFERENCE_LUA), &[])?;
    let ours = run_on(ljr, flags)?;
    let _ = std::fs::remove_file(&file);
    if comparable(&reference.stdout) == comparable(&ours.stdout) && reference.exit == ours.exit {
        return Ok(());
    }
    Err(format!(
        "seed {seed}: lua5.1 {:?}, implementation {:?} (flags {flags:?})\n{}\n--- program ---\n{source}",
        reference.exit,
        ours.exit,
        crate::diff::unified_diff(&reference.stdout, &ours.stdout, 3, 60)
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn variable_names_are_dropped_from_error_messages_only() {
        let s = b"x\terror\tf.lua:3: attempt to perform arithmetic on upvalue 'a' (a nil value)\nlocal 'b' stays\n";
        assert_eq!(
            String::from_utf8(super::without_variable_names(s)).unwrap(),
            "x\terror\tf.lua:3: attempt to perform arithmetic on a nil value\nlocal 'b' stays\n"
        );
    }

    /// The statement families that stress the JIT's caches, traversals and library argument
    /// checks keep turning up (a change of the statement mix must not drop them unnoticed).
    #[test]
    fn cache_churn_traversals_and_library_calls_are_generated() {
        let programs: Vec<String> = (1..=40).map(super::program).collect();
        assert!(programs.iter().filter(|p| p.contains("local os, step")).count() >= 5, "cache churn");
        assert!(programs.iter().filter(|p| p.contains("seen[#seen + 1]")).count() >= 3, "traversals");
        assert!(programs.iter().filter(|p| p.contains("P(C(")).count() >= 5, "library calls");
    }

    #[test]
    fn programs_are_a_function_of_the_seed() {
        assert_eq!(super::program(7), super::program(7));
        assert_ne!(super::program(7), super::program(8));
    }
}
