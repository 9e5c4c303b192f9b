//! The abstract syntax tree produced by [`crate::parse_chunk`].
//!
//! The tree is purely syntactic: names are not resolved to locals, upvalues or
//! globals (the code generator does that, with the scoping rules documented on
//! each node). It keeps exactly what a Lua 5.1 code generator needs and nothing
//! the source spelling alone decides: `a.b` and `a["b"]` are the same
//! [`ExprKind::Index`] node, `f"s"` and `f{...}` are calls with one argument.
//! It does keep [`ExprKind::Paren`], because parentheses change semantics
//! (`(f())` is truncated to one value and `(a)` is not assignable).
//!
//! # Line numbers
//!
//! Every [`Stat`] and [`Expr`] carries the line lua5.1 would use for it, so
//! that runtime errors (`t.lua:3: attempt to call global 'f'`) and debug info
//! can match the reference implementation. A "token's line" is the line on
//! which the token *ends* (lua5.1's `ls->linenumber` while the token is
//! current); this only differs from its first line for multi-line long
//! strings. [`Expr::end_line`] is the line of the expression's last token
//! (lua5.1's `ls->lastline` just after parsing it), which is where lua5.1
//! attributes the instructions it emits once an operand is complete (for
//! example an arithmetic instruction is emitted after its right operand).

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

/// A byte string from the source: a name or a string constant.
///
/// Lua strings are arbitrary bytes, so this is not `str`. `Debug` and
/// `Display` print it escaped and quoted like a Lua string literal.
///
/// Shared, not owned: a name is cloned from its token into the tree and from the tree into
/// the compiler's scopes, and a copy per clone was a third of the front end's allocations.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LuaStr(Rc<[u8]>);

impl LuaStr {
    /// Wraps a byte string.
    pub fn new(bytes: impl Into<Box<[u8]>>) -> Self {
        LuaStr(Rc::from(bytes.into()))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes as UTF-8, if they are valid UTF-8.
    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }
}

impl Deref for LuaStr {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Hashes and compares as its bytes (a set of names is searched by a token's bytes).
impl std::borrow::Borrow<[u8]> for LuaStr {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for LuaStr {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<&[u8]> for LuaStr {
    fn from(b: &[u8]) -> Self {
        LuaStr(b.into())
    }
}

impl From<Vec<u8>> for LuaStr {
    fn from(b: Vec<u8>) -> Self {
        LuaStr(b.into())
    }
}

impl From<&str> for LuaStr {
    fn from(s: &str) -> Self {
        LuaStr(s.as_bytes().into())
    }
}

impl fmt::Debug for LuaStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for LuaStr {
    /// Prints a quoted literal that lua5.1 reads back as the same bytes:
    /// printable ASCII as is, `\n`-style escapes for the common controls and
    /// `\ddd` for everything else.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for (i, &c) in self.0.iter().enumerate() {
            match c {
                b'"' => f.write_str("\\\"")?,
                b'\\' => f.write_str("\\\\")?,
                b'\n' => f.write_str("\\n")?,
                b'\r' => f.write_str("\\r")?,
                b'\t' => f.write_str("\\t")?,
                0x20..=0x7e => write!(f, "{}", c as char)?,
                _ => {
                    // Pad to three digits when a digit follows, so the escape
                    // cannot swallow it.
                    if self.0.get(i + 1).is_some_and(u8::is_ascii_digit) {
                        write!(f, "\\{c:03}")?
                    } else {
                        write!(f, "\\{c}")?
                    }
                }
            }
        }
        f.write_str("\"")
    }
}

/// A whole source file or string: the body of the main function.
///
/// The main function is always vararg (it may use `...`) and, unlike other
/// vararg functions, has no implicit `arg` local. Its `linedefined` is 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub body: Block,
    /// Line of the chunk's last token (1 when empty): lua5.1 attributes the
    /// implicit final `return` of the main function to it.
    pub end_line: u32,
    /// Whether `...` occurs in the main function itself (not in nested functions).
    pub uses_vararg: bool,
}

/// A sequence of statements; a new scope for locals.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    pub stats: Vec<Stat>,
}

/// A statement and the line lua5.1 attributes to it (the line of its first token).
#[derive(Debug, Clone, PartialEq)]
pub struct Stat {
    pub line: u32,
    pub kind: StatKind,
}

/// The statement forms of Lua 5.1.
#[derive(Debug, Clone, PartialEq)]
pub enum StatKind {
    /// `targets = values`. Every target is an [`ExprKind::Name`] or an
    /// [`ExprKind::Index`] (the parser rejects anything else with lua5.1's
    /// `syntax error`). All values are evaluated before any assignment.
    Assign { targets: Vec<Expr>, values: Vec<Expr> },
    /// A call used as a statement (its results are discarded). The expression
    /// is an [`ExprKind::Call`] or [`ExprKind::MethodCall`].
    Call(Expr),
    /// `local names [= values]`. The names come into scope after the
    /// statement, so `values` still see any outer variables of the same name.
    Local { names: Vec<LuaStr>, values: Vec<Expr> },
    /// `local function name body`. The name is in scope inside the body
    /// (the function can call itself), unlike `local name = function ... end`.
    LocalFunction { name: LuaStr, func: Box<FuncBody> },
    /// `function a.b.c:m body`: an assignment to the (resolved) name path.
    /// Lua 5.1 attributes the store to the statement's line.
    Function { name: FuncName, func: Box<FuncBody> },
    /// `do block end`
    Do(Block),
    /// `while cond do block end`
    While { cond: Expr, body: Block },
    /// `repeat block until cond`. `cond` is inside the scope of `body`: it
    /// sees the locals declared in the loop body.
    Repeat { body: Block, cond: Expr },
    /// `if c1 then b1 elseif c2 then b2 ... else bn end`; `clauses` has at least one entry.
    If { clauses: Vec<IfClause>, else_block: Option<Block> },
    /// `for var = start, limit [, step] do body end`. Lua 5.1 declares three
    /// hidden locals (`(for index)`, `(for limit)`, `(for step)`) before `var`,
    /// and attributes the loop instructions to [`Stat::line`]. (Boxed: it is twice the size of
    /// any other statement, and every statement of a block is as large as the largest.)
    NumericFor(Box<NumericFor>),
    /// `for vars in exprs do body end`. Lua 5.1 declares three hidden locals
    /// (`(for generator)`, `(for state)`, `(for control)`) before `vars`.
    GenericFor {
        vars: Vec<LuaStr>,
        exprs: Vec<Expr>,
        body: Block,
        /// Line of the first token after `in`: lua5.1 attributes the loop's
        /// iterator call to this line, not to the `for` keyword.
        iter_line: u32,
    },
    /// `return exprs`; always the last statement of its block.
    Return(Vec<Expr>),
    /// `break`; always the last statement of its block, and always inside a
    /// loop of the same function (checked by the parser).
    Break,
}

/// The parts of a [`StatKind::NumericFor`].
#[derive(Debug, Clone, PartialEq)]
pub struct NumericFor {
    pub var: LuaStr,
    pub start: Expr,
    pub limit: Expr,
    pub step: Option<Expr>,
    pub body: Block,
}

/// One `if`/`elseif` arm.
#[derive(Debug, Clone, PartialEq)]
pub struct IfClause {
    pub cond: Expr,
    pub body: Block,
}

/// The name of a `function` statement: `base.fields[0].fields[1]...:method`.
#[derive(Debug, Clone, PartialEq)]
pub struct FuncName {
    /// The variable the path starts from (a local, upvalue or global).
    pub base: LuaStr,
    /// Line of `base`.
    pub base_line: u32,
    pub fields: Vec<LuaStr>,
    /// Present for `a:m`; the function then has an implicit first parameter
    /// `self` ([`FuncBody::is_method`]).
    pub method: Option<LuaStr>,
}

/// A function body (`function` expression, `function` statement, `local function`).
#[derive(Debug, Clone, PartialEq)]
pub struct FuncBody {
    /// The declared parameter names, in order (without `...`, and without
    /// the implicit `self` of methods).
    pub params: Vec<LuaStr>,
    /// Whether this is a method definition (`function a:m()`), whose first
    /// parameter is an implicit `self` before `params`: the fixed parameter
    /// count is then `params.len() + 1`.
    pub is_method: bool,
    /// Whether the parameter list ends in `...`.
    ///
    /// Lua 5.1 (built with `LUA_COMPAT_VARARG`, as the reference `lua5.1`
    /// is) then also declares a local named `arg` right after the parameters.
    /// When the body never uses `...` ([`FuncBody::uses_vararg`] is false),
    /// `arg` holds a table of the extra arguments with field `n`; otherwise it
    /// is nil. It shadows outer `arg` variables either way.
    pub is_vararg: bool,
    /// Whether `...` occurs directly in this function (not in nested ones).
    pub uses_vararg: bool,
    /// lua5.1's `linedefined`: the line of the `function` keyword for
    /// `function` statements; for `local function f` and anonymous functions,
    /// the line of the token after the name / after `function` (normally `(`).
    pub line_defined: u32,
    /// lua5.1's `lastlinedefined`: the line of the closing `end`.
    pub last_line_defined: u32,
    pub body: Block,
}

/// An expression with the lines lua5.1 attributes to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// The expression's own line, by kind:
    /// literals, names, `...`: the token's line; [`ExprKind::Call`] and
    /// [`ExprKind::MethodCall`]: the line of the argument list's first token
    /// (`(`, `{` or the string), where lua5.1 attributes the call;
    /// [`ExprKind::Index`]: the line of `.`/`[`; operators: the operator's
    /// line; [`ExprKind::Paren`]: the `(`; [`ExprKind::Table`]: the `{`;
    /// [`ExprKind::Function`]: the `function` keyword.
    pub line: u32,
    /// Line of the expression's last token.
    pub end_line: u32,
    pub kind: ExprKind,
}

impl Drop for Expr {
    /// Drops iteratively. Left-associative chains (`a + b + c ...`,
    /// `a.b.c ...`, `f()()()...`) nest without bound (lua5.1 accepts any
    /// length), so the derived recursive drop could overflow the stack on
    /// long generated sources.
    fn drop(&mut self) {
        // A leaf, or a node whose children are all leaves (most expressions): the fields'
        // own drops go one level deep, and allocate no list (which was a tenth of the time
        // a large chunk took to load).
        if !has_boxed_child(&self.kind) || !any_child(&self.kind, |c| has_boxed_child(&c.kind)) {
            return;
        }
        let mut pending = vec![std::mem::replace(&mut self.kind, ExprKind::Nil)];
        while let Some(mut kind) = pending.pop() {
            let mut take = |e: &mut Expr| {
                if has_boxed_child(&e.kind) {
                    pending.push(std::mem::replace(&mut e.kind, ExprKind::Nil));
                }
            };
            match &mut kind {
                ExprKind::Index { object, key } => {
                    take(object);
                    take(key);
                }
                ExprKind::Call { func, args } => {
                    take(func);
                    args.iter_mut().for_each(&mut take);
                }
                ExprKind::MethodCall(m) => {
                    take(&mut m.object);
                    m.args.iter_mut().for_each(&mut take);
                }
                ExprKind::Paren(e) => take(e),
                ExprKind::Unary { operand, .. } => take(operand),
                ExprKind::Binary { lhs, rhs, .. } => {
                    take(lhs);
                    take(rhs);
                }
                // Tables and functions nest only as deep as lua5.1's syntax
                // level limit allows; dropping them recursively is fine.
                _ => {}
            }
            // `kind` now only holds leaves (or bounded subtrees) and drops here.
        }
    }
}

/// Whether `f` holds for a child that [`Expr`]'s drop would otherwise take apart.
fn any_child(kind: &ExprKind, f: impl Fn(&Expr) -> bool) -> bool {
    match kind {
        ExprKind::Index { object, key } => f(object) || f(key),
        ExprKind::Call { func, args } => f(func) || args.iter().any(f),
        ExprKind::MethodCall(m) => f(&m.object) || m.args.iter().any(f),
        ExprKind::Paren(e) => f(e),
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Binary { lhs, rhs, .. } => f(lhs) || f(rhs),
        _ => false,
    }
}

/// Whether dropping this node recursively could go deep.
fn has_boxed_child(kind: &ExprKind) -> bool {
    matches!(
        kind,
        ExprKind::Index { .. }
            | ExprKind::Call { .. }
            | ExprKind::MethodCall(_)
            | ExprKind::Paren(_)
            | ExprKind::Unary { .. }
            | ExprKind::Binary { .. }
    )
}

/// The expression forms of Lua 5.1.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Nil,
    True,
    False,
    Number(f64),
    String(LuaStr),
    /// `...`; only in vararg functions (checked by the parser).
    Vararg,
    Function(Box<FuncBody>),
    Table(Vec<TableField>),
    /// A variable reference, to be resolved to a local, upvalue or global.
    Name(LuaStr),
    /// `object[key]`; `object.name` is an index with a string key.
    Index {
        object: Box<Expr>,
        key: Box<Expr>,
    },
    /// `func(args)`, `func"s"`, `func{...}`.
    Call {
        func: Box<Expr>,
        args: Box<[Expr]>,
    },
    /// `object:method(args)`: `object` is evaluated once and passed as the first argument.
    /// (Boxed whole, as is `Call`'s argument list: every node is as large as the largest
    /// kind, and a large chunk's tree is mostly constants, names and tables.)
    MethodCall(Box<MethodCall>),
    /// `(e)`: truncates calls and `...` to exactly one value, and is not an
    /// assignment target.
    Paren(Box<Expr>),
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

impl ExprKind {
    /// Whether the expression can produce several values (a call or `...`,
    /// not parenthesised): the last expression of a list is expanded.
    pub fn is_multi_value(&self) -> bool {
        matches!(self, ExprKind::Call { .. } | ExprKind::MethodCall(_) | ExprKind::Vararg)
    }
}

/// The parts of an [`ExprKind::MethodCall`].
#[derive(Debug, Clone, PartialEq)]
pub struct MethodCall {
    pub object: Expr,
    pub method: LuaStr,
    pub args: Box<[Expr]>,
}

/// An entry of a table constructor.
#[derive(Debug, Clone, PartialEq)]
pub enum TableField {
    /// `value`: stored at the next array index. If the last positional field
    /// is a multi-value expression, all its values are stored.
    Positional(Expr),
    /// `name = value`
    Named { name: LuaStr, value: Expr },
    /// `[key] = value` (the key boxed: every field of a constructor is as large as the largest
    /// variant, and a data file's constructors are mostly positional and named fields).
    Keyed { key: Box<Expr>, value: Expr },
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `not`
    Not,
    /// `-`
    Neg,
    /// `#`
    Len,
}

/// Binary operators, in lua5.1's `BinOpr` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Concat,
    Ne,
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl UnOp {
    /// The operator as written in Lua.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Not => "not",
            UnOp::Neg => "-",
            UnOp::Len => "#",
        }
    }
}

impl BinOp {
    /// The operator as written in Lua.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
            BinOp::Concat => "..",
            BinOp::Ne => "~=",
            BinOp::Eq => "==",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }

    /// Left and right binding priorities from lua5.1's `priority` table:
    /// an operator continues an expression parsed with limit `l` when its left
    /// priority is above `l`, and its right operand is parsed with the right
    /// priority as the limit (lower right priority = right associative).
    pub fn priority(self) -> (u8, u8) {
        match self {
            BinOp::Add | BinOp::Sub => (6, 6),
            BinOp::Mul | BinOp::Div | BinOp::Mod => (7, 7),
            BinOp::Pow => (10, 9),
            BinOp::Concat => (5, 4),
            BinOp::Ne | BinOp::Eq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (3, 3),
            BinOp::And => (2, 2),
            BinOp::Or => (1, 1),
        }
    }
}

/// Priority of unary operators: they bind tighter than every binary operator
/// except `^` (so `-x^2` is `-(x^2)` and `-x*y` is `(-x)*y`).
pub const UNARY_PRIORITY: u8 = 8;
