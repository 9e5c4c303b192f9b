//! The Lua 5.1 parser: a port of lua5.1's `lparser.c` that builds an AST
//! instead of emitting code.
//!
//! It follows lparser.c's control flow closely, because the *first* error
//! found, its line and its token are observable. Besides the grammar it
//! performs every check lua5.1 makes at parse time:
//!
//! * `break` outside a loop, `...` outside a vararg function;
//! * `(f)\n(g)` ambiguity, non-assignable targets (`syntax error`);
//! * the nesting limit `chunk has too many syntax levels` (LUAI_MAXCCALLS),
//!   which also bounds this parser's recursion;
//! * the limits on active locals (200), upvalues (60) and assignment targets,
//!   which need a light-weight name resolution (only counted, not recorded).

use crate::ast::*;
use crate::error::SyntaxError;
use crate::lexer::{LexResult, Lexer, Reader, Token};
use std::sync::atomic::{AtomicBool, Ordering};

/// lua5.1's `LUAI_MAXCCALLS`: the limit on nested C calls, which the parser
/// also spends on syntactic nesting.
pub const LUAI_MAXCCALLS: u32 = 200;
/// lua5.1's `LUAI_MAXVARS`: active local variables per function.
pub const LUAI_MAXVARS: usize = 200;
/// lua5.1's `LUAI_MAXUPVALUES`: upvalues per function.
pub const LUAI_MAXUPVALUES: usize = 60;

/// How the chunk is being loaded.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// Skip a first line starting with `#` (as lua5.1's `luaL_loadfile`
    /// does for files; `loadstring` does not). The newline is kept, so line
    /// numbers are unchanged.
    pub skip_shebang: bool,
    /// lua5.1's `L->nCcalls` when the parser starts: the nesting limit counts
    /// from it. 1 when the standalone interpreter loads a script or `-e`
    /// code; one more for each C call boundary (`pcall`, metamethods called
    /// from C, ...) on the stack when `loadstring`/`load` runs, e.g. 2 for a
    /// `loadstring` called from a main chunk.
    pub c_calls: u32,
    /// A flag the lexer checks at every token: once it is set, the parse stops with "not
    /// enough memory" ([`SyntaxError::is_out_of_memory`]). The VM's global allocator sets it
    /// when an allocation fails and it had to give back its reserve (the tree's nodes are
    /// infallible Rust allocations: without the check, running out of memory while parsing
    /// a large chunk would abort the process).
    pub out_of_memory: Option<&'static AtomicBool>,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { skip_shebang: true, c_calls: 1, out_of_memory: None }
    }
}

impl PartialEq for ParseOptions {
    fn eq(&self, other: &Self) -> bool {
        let same_flag = match (self.out_of_memory, other.out_of_memory) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        self.skip_shebang == other.skip_shebang && self.c_calls == other.c_calls && same_flag
    }
}

impl Eq for ParseOptions {}

type PResult<T> = LexResult<T>;

/// A local variable's or upvalue's identity for upvalue de-duplication
/// (lua5.1 compares the enclosing function's register or upvalue index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VarRef {
    Global,
    Local(usize),
    Upval(usize),
}

#[derive(Debug, Clone, Copy)]
struct BlockCnt {
    /// Active locals outside the block.
    nactvar: usize,
    is_loop: bool,
}

/// Per-function parse state (lua5.1's `FuncState`, minus code generation).
#[derive(Debug)]
struct FuncState {
    /// 0 for the main function.
    line_defined: u32,
    is_vararg: bool,
    uses_vararg: bool,
    /// Declared local names: the first `nactvar` are active, the rest are
    /// declared by the statement being parsed and not yet in scope.
    vars: Vec<LuaStr>,
    nactvar: usize,
    upvalues: Vec<VarRef>,
    blocks: Vec<BlockCnt>,
}

impl FuncState {
    fn new(line_defined: u32) -> Self {
        FuncState { line_defined, is_vararg: false, uses_vararg: false, vars: Vec::new(), nactvar: 0, upvalues: Vec::new(), blocks: Vec::new() }
    }
}

/// Parses a Lua 5.1 chunk with the default options (script-file semantics).
///
/// `chunk_name` is the name as printed in messages: `t.lua` for a file,
/// `(command line)` for `lua -e`, or the result of [`crate::chunk_id`] /
/// [`crate::chunk_id_for_syntax_error`] for other source names.
pub fn parse_chunk(source: &[u8], chunk_name: impl AsRef<[u8]>) -> Result<Chunk, SyntaxError> {
    parse_chunk_with(source, chunk_name, &ParseOptions::default())
}

/// Parses a Lua 5.1 chunk.
pub fn parse_chunk_with(source: &[u8], chunk_name: impl AsRef<[u8]>, options: &ParseOptions) -> Result<Chunk, SyntaxError> {
    parse_with_lexer(Lexer::new(skip_shebang(source, options), chunk_name), options)
}

/// The source after a first line starting with `#`, when the options say to skip it (the
/// newline kept, so that line numbers stay).
fn skip_shebang<'s>(source: &'s [u8], options: &ParseOptions) -> &'s [u8] {
    if options.skip_shebang && source.first() == Some(&b'#') {
        let nl = source.iter().position(|&b| b == b'\n').unwrap_or(source.len());
        return &source[nl..];
    }
    source
}

/// Parses a Lua 5.1 chunk read piece by piece from `reader` (lua5.1's
/// `lua_load` with a reader function), reading no further than lua5.1 does.
/// A chunk read this way never skips a `#` line.
pub fn parse_chunk_streaming(reader: Reader<'_>, chunk_name: impl AsRef<[u8]>, options: &ParseOptions) -> Result<Chunk, SyntaxError> {
    parse_with_lexer(Lexer::streaming(reader, chunk_name), options)
}

fn parse_with_lexer(lx: Lexer<'_>, options: &ParseOptions) -> Result<Chunk, SyntaxError> {
    Parser::new(lx, options).main().map_err(|e| *e)
}

/// What the main function's body ends with, once [`parse_chunk_each`] handed over its
/// statements: the rest of a [`Chunk`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkEnd {
    /// As [`Chunk::end_line`].
    pub end_line: u32,
    /// As [`Chunk::uses_vararg`].
    pub uses_vararg: bool,
}

/// Why [`parse_chunk_each`] stopped: the source's syntax error, or the error of the consumer
/// of its statements.
#[derive(Debug)]
pub enum EachError<E> {
    Syntax(Box<SyntaxError>),
    Sink(E),
}

impl<E> From<Box<SyntaxError>> for EachError<E> {
    fn from(e: Box<SyntaxError>) -> Self {
        EachError::Syntax(e)
    }
}

/// [`parse_chunk_with`], handing each top-level statement of the chunk to `each` as soon as it
/// is parsed, in order, instead of building the whole tree: a code generator compiles a
/// statement and drops its tree before the next one is parsed, so a large file's tree is
/// never all in memory at once (the memory of one statement's nodes is reused by the next),
/// and, as in lua5.1's one-pass compiler, an error `each` finds in a statement is reported
/// before any syntax error after it. The first error of either kind stops the parse.
pub fn parse_chunk_each<E>(
    source: &[u8],
    chunk_name: impl AsRef<[u8]>,
    options: &ParseOptions,
    mut each: impl FnMut(Stat) -> Result<(), E>,
) -> Result<ChunkEnd, EachError<E>> {
    Parser::new(Lexer::new(skip_shebang(source, options), chunk_name), options).main_each(&mut each)
}

struct Parser<'a> {
    lx: Lexer<'a>,
    /// The current token.
    t: Token,
    lookahead: Option<Token>,
    /// Line of the last token consumed (lua5.1's `ls->lastline`).
    lastline: u32,
    fs: Vec<FuncState>,
    nccalls: u32,
    /// [`ParseOptions::out_of_memory`].
    out_of_memory: Option<&'static AtomicBool>,
}

fn block_follow(t: &Token) -> bool {
    matches!(t, Token::Else | Token::Elseif | Token::End | Token::Until | Token::Eof)
}

fn unop(t: &Token) -> Option<UnOp> {
    match t {
        Token::Not => Some(UnOp::Not),
        Token::Char(b'-') => Some(UnOp::Neg),
        Token::Char(b'#') => Some(UnOp::Len),
        _ => None,
    }
}

fn binop(t: &Token) -> Option<BinOp> {
    Some(match t {
        Token::Char(b'+') => BinOp::Add,
        Token::Char(b'-') => BinOp::Sub,
        Token::Char(b'*') => BinOp::Mul,
        Token::Char(b'/') => BinOp::Div,
        Token::Char(b'%') => BinOp::Mod,
        Token::Char(b'^') => BinOp::Pow,
        Token::Concat => BinOp::Concat,
        Token::Ne => BinOp::Ne,
        Token::Eq => BinOp::Eq,
        Token::Char(b'<') => BinOp::Lt,
        Token::Le => BinOp::Le,
        Token::Char(b'>') => BinOp::Gt,
        Token::Ge => BinOp::Ge,
        Token::And => BinOp::And,
        Token::Or => BinOp::Or,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn new(lx: Lexer<'a>, options: &ParseOptions) -> Self {
        Parser { lx, t: Token::Eof, lookahead: None, lastline: 1, fs: Vec::new(), nccalls: options.c_calls, out_of_memory: options.out_of_memory }
    }

    // ----------------------------------------------------------------
    // Token handling and errors
    // ----------------------------------------------------------------

    /// lua5.1's `luaX_next`.
    fn next(&mut self) -> PResult<()> {
        if self.out_of_memory.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(self.out_of_memory_error());
        }
        self.lastline = self.lx.line();
        self.t = match self.lookahead.take() {
            Some(t) => t,
            None => self.lx.lex()?,
        };
        Ok(())
    }

    /// lua5.1's `luaX_lookahead`.
    fn peek(&mut self) -> PResult<&Token> {
        if self.lookahead.is_none() {
            self.lookahead = Some(self.lx.lex()?);
        }
        Ok(self.lookahead.as_ref().expect("just filled"))
    }

    fn line(&self) -> u32 {
        self.lx.line()
    }

    /// lua5.1's `luaX_syntaxerror`: an error near the current token.
    fn error(&self, message: impl Into<String>) -> Box<SyntaxError> {
        self.lx.error_near(message, &self.t)
    }

    /// Memory ran out while parsing (see [`ParseOptions::out_of_memory`]).
    #[cold]
    fn out_of_memory_error(&self) -> Box<SyntaxError> {
        self.lx.error(crate::error::OUT_OF_MEMORY, None)
    }

    /// Room for one more item in `list`, which the source can make as long as it likes (a
    /// block's statements, a table constructor's fields, an expression list): its growth,
    /// megabytes at a time for a large generated chunk, fails as "not enough memory" rather
    /// than aborting.
    fn room_for_one<T>(&self, list: &mut Vec<T>) -> PResult<()> {
        if list.len() == list.capacity() && list.try_reserve(1).is_err() {
            return Err(self.out_of_memory_error());
        }
        Ok(())
    }

    /// lua5.1's `error_expected`.
    fn error_expected(&self, what: &str) -> Box<SyntaxError> {
        self.error(format!("'{what}' expected"))
    }

    /// lua5.1's `errorlimit`: reported without a token.
    fn error_limit(&self, fs: usize, limit: usize, what: &str) -> Box<SyntaxError> {
        let line_defined = self.fs[fs].line_defined;
        let msg = if line_defined == 0 {
            format!("main function has more than {limit} {what}")
        } else {
            format!("function at line {line_defined} has more than {limit} {what}")
        };
        self.lx.error(msg, None)
    }

    fn is_char(&self, c: u8) -> bool {
        self.t == Token::Char(c)
    }

    fn test_next(&mut self, t: &Token) -> PResult<bool> {
        if self.t == *t {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn test_next_char(&mut self, c: u8) -> PResult<bool> {
        self.test_next(&Token::Char(c))
    }

    /// lua5.1's `checknext`.
    fn check_next(&mut self, t: &Token) -> PResult<()> {
        if self.t != *t {
            return Err(self.error_expected(&String::from_utf8_lossy(&t.symbol())));
        }
        self.next()
    }

    fn check_next_char(&mut self, c: u8) -> PResult<()> {
        self.check_next(&Token::Char(c))
    }

    /// lua5.1's `check_match`: expects `what` closing `who` opened at line `line`.
    fn check_match(&mut self, what: &Token, who: &Token, line: u32) -> PResult<()> {
        if self.test_next(what)? {
            return Ok(());
        }
        let what_s = String::from_utf8_lossy(&what.symbol()).into_owned();
        if line == self.line() {
            Err(self.error_expected(&what_s))
        } else {
            let who_s = String::from_utf8_lossy(&who.symbol()).into_owned();
            Err(self.error(format!("'{what_s}' expected (to close '{who_s}' at line {line})")))
        }
    }

    /// lua5.1's `str_checkname`.
    fn check_name(&mut self) -> PResult<LuaStr> {
        if !matches!(self.t, Token::Name(_)) {
            return Err(self.error_expected("<name>"));
        }
        // Taken, not cloned: `next` replaces the token.
        let Token::Name(n) = std::mem::replace(&mut self.t, Token::Eof) else { unreachable!("a name, tested above") };
        self.next()?;
        Ok(n)
    }

    fn enter_level(&mut self) -> PResult<()> {
        self.nccalls = self.nccalls.saturating_add(1);
        if self.nccalls > LUAI_MAXCCALLS {
            return Err(self.lx.error("chunk has too many syntax levels", None));
        }
        Ok(())
    }

    fn leave_level(&mut self) {
        self.nccalls -= 1;
    }

    // ----------------------------------------------------------------
    // Scopes (only what lua5.1's limits and checks need)
    // ----------------------------------------------------------------

    fn cur(&mut self) -> &mut FuncState {
        self.fs.last_mut().expect("inside a function")
    }

    /// lua5.1's `new_localvar`: declares the `n`-th new local of the current
    /// statement (not yet in scope).
    fn new_localvar(&mut self, name: LuaStr, n: usize) -> PResult<()> {
        let fs = self.fs.len() - 1;
        if self.fs[fs].nactvar + n + 1 > LUAI_MAXVARS {
            return Err(self.error_limit(fs, LUAI_MAXVARS, "local variables"));
        }
        let f = self.cur();
        let at = f.nactvar + n;
        f.vars.truncate(at);
        f.vars.push(name);
        Ok(())
    }

    /// lua5.1's `adjustlocalvars`: brings `n` declared locals into scope.
    fn adjust_localvars(&mut self, n: usize) {
        self.cur().nactvar += n;
    }

    fn enter_block(&mut self, is_loop: bool) {
        let f = self.cur();
        let nactvar = f.nactvar;
        f.blocks.push(BlockCnt { nactvar, is_loop });
    }

    fn leave_block(&mut self) {
        let f = self.cur();
        let bl = f.blocks.pop().expect("balanced blocks");
        f.nactvar = bl.nactvar;
        f.vars.truncate(bl.nactvar);
    }

    /// lua5.1's `singlevaraux`: resolves `name` from function `level`
    /// outwards, registering upvalues (to enforce their limit).
    fn resolve(&mut self, level: usize, name: &LuaStr) -> PResult<VarRef> {
        let f = &self.fs[level];
        if let Some(i) = f.vars[..f.nactvar].iter().rposition(|v| v == name) {
            return Ok(VarRef::Local(i));
        }
        if level == 0 {
            return Ok(VarRef::Global);
        }
        let outer = self.resolve(level - 1, name)?;
        if outer == VarRef::Global {
            return Ok(VarRef::Global);
        }
        let f = &self.fs[level];
        if let Some(i) = f.upvalues.iter().position(|u| *u == outer) {
            return Ok(VarRef::Upval(i));
        }
        if f.upvalues.len() + 1 > LUAI_MAXUPVALUES {
            return Err(self.error_limit(level, LUAI_MAXUPVALUES, "upvalues"));
        }
        let f = &mut self.fs[level];
        f.upvalues.push(outer);
        Ok(VarRef::Upval(f.upvalues.len() - 1))
    }

    /// lua5.1's `singlevar`: a variable reference.
    fn single_var(&mut self) -> PResult<Expr> {
        let line = self.line();
        let name = self.check_name()?;
        self.resolve(self.fs.len() - 1, &name)?;
        Ok(self.expr_at(line, ExprKind::Name(name)))
    }

    fn expr_at(&self, line: u32, kind: ExprKind) -> Expr {
        Expr { line, end_line: self.lastline, kind }
    }

    // ----------------------------------------------------------------
    // Chunks and blocks
    // ----------------------------------------------------------------

    fn main(&mut self) -> PResult<Chunk> {
        let mut stats: Vec<Stat> = Vec::new();
        // (Grown fallibly, as a block's statements are: a chunk can have millions.)
        let end = self.main_each(&mut |s| {
            if stats.len() == stats.capacity() {
                stats.try_reserve(1)?;
            }
            stats.push(s);
            Ok::<(), std::collections::TryReserveError>(())
        });
        match end {
            Ok(end) => Ok(Chunk { body: Block { stats }, end_line: end.end_line, uses_vararg: end.uses_vararg }),
            Err(EachError::Syntax(e)) => Err(e),
            // (The collector's only error: the list could not grow.)
            Err(EachError::Sink(_)) => Err(self.out_of_memory_error()),
        }
    }

    /// The main function's body, each top-level statement handed to `each` as soon as it is
    /// parsed (lua5.1's `chunk` at level 0, with the main function's `FuncState` around it).
    fn main_each<E>(&mut self, each: &mut impl FnMut(Stat) -> Result<(), E>) -> Result<ChunkEnd, EachError<E>> {
        let mut fs = FuncState::new(0);
        fs.is_vararg = true; // the main function is always vararg, without `arg`
        self.fs.push(fs);
        self.next()?;
        self.enter_level()?;
        // (One statement's worth at a time: `statement` pushes what it parsed here.)
        let mut stats = Vec::with_capacity(1);
        while !block_follow(&self.t) {
            self.statement(&mut stats)?;
            self.test_next_char(b';')?;
            let last = matches!(stats.last().map(|s| &s.kind), Some(StatKind::Return(_) | StatKind::Break));
            for s in stats.drain(..) {
                each(s).map_err(EachError::Sink)?;
            }
            if last {
                break;
            }
        }
        self.leave_level();
        if self.t != Token::Eof {
            return Err(self.error_expected("<eof>").into());
        }
        let fs = self.fs.pop().expect("main function");
        Ok(ChunkEnd { end_line: self.lastline, uses_vararg: fs.uses_vararg })
    }

    /// lua5.1's `chunk`: statements up to a block end; `return` and `break`
    /// must be last.
    fn chunk(&mut self) -> PResult<Block> {
        self.enter_level()?;
        let mut stats = Vec::new();
        while !block_follow(&self.t) {
            self.statement(&mut stats)?;
            self.test_next_char(b';')?;
            if matches!(stats.last().map(|s| &s.kind), Some(StatKind::Return(_) | StatKind::Break)) {
                break;
            }
        }
        self.leave_level();
        Ok(Block { stats })
    }

    /// lua5.1's `block`: a chunk in its own scope.
    fn block(&mut self) -> PResult<Block> {
        self.enter_block(false);
        let b = self.chunk()?;
        self.leave_block();
        Ok(b)
    }

    // ----------------------------------------------------------------
    // Statements
    // ----------------------------------------------------------------

    /// Parses one statement into `stats`.
    ///
    /// Statement and expression parsing recurse once per nesting level (up
    /// to the syntax-level limit), so the functions on those paths keep small
    /// stack frames even in unoptimised builds: statements are pushed into
    /// `stats` by their parser rather than returned, and dispatch goes
    /// through a function pointer (a single call site).
    fn statement(&mut self, stats: &mut Vec<Stat>) -> PResult<()> {
        let line = self.line();
        let parse: fn(&mut Self, u32, &mut Vec<Stat>) -> PResult<()> = match self.t {
            Token::If => Self::if_stat,
            Token::While => Self::while_stat,
            Token::Do => Self::do_stat,
            Token::For => Self::for_stat,
            Token::Repeat => Self::repeat_stat,
            Token::Function => Self::func_stat,
            Token::Local => Self::local_stat,
            Token::Return => Self::ret_stat,
            Token::Break => Self::break_stat,
            _ => Self::expr_stat,
        };
        self.room_for_one(stats)?;
        parse(self, line, stats)
    }

    fn do_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        let b = self.block()?;
        self.check_match(&Token::End, &Token::Do, line)?;
        out.push(Stat { line, kind: StatKind::Do(b) });
        Ok(())
    }

    fn break_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        if !self.cur().blocks.iter().any(|b| b.is_loop) {
            return Err(self.error("no loop to break"));
        }
        out.push(Stat { line, kind: StatKind::Break });
        Ok(())
    }

    fn if_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        let mut clauses = Vec::new();
        self.test_then_block(&mut clauses)?;
        while self.t == Token::Elseif {
            self.test_then_block(&mut clauses)?;
        }
        let else_block = if self.t == Token::Else {
            self.next()?;
            Some(self.block()?)
        } else {
            None
        };
        self.check_match(&Token::End, &Token::If, line)?;
        let kind = StatKind::If { clauses, else_block };
        out.push(Stat { line, kind });
        Ok(())
    }

    /// `[if | elseif] cond then block`
    fn test_then_block(&mut self, clauses: &mut Vec<IfClause>) -> PResult<()> {
        self.next()?;
        let cond = self.expr()?;
        self.check_next(&Token::Then)?;
        let body = self.block()?;
        self.room_for_one(clauses)?;
        clauses.push(IfClause { cond, body });
        Ok(())
    }

    fn while_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        let cond = self.expr()?;
        self.enter_block(true);
        self.check_next(&Token::Do)?;
        let body = self.block()?;
        self.check_match(&Token::End, &Token::While, line)?;
        self.leave_block();
        let kind = StatKind::While { cond, body };
        out.push(Stat { line, kind });
        Ok(())
    }

    fn repeat_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.enter_block(true); // loop block
        self.enter_block(false); // scope block, also covering `until`'s condition
        self.next()?;
        let body = self.chunk()?;
        self.check_match(&Token::Until, &Token::Repeat, line)?;
        let cond = self.expr()?;
        self.leave_block();
        self.leave_block();
        let kind = StatKind::Repeat { body, cond };
        out.push(Stat { line, kind });
        Ok(())
    }

    fn for_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.enter_block(true);
        self.next()?;
        let var = self.check_name()?;
        let parse: fn(&mut Self, LuaStr, u32, &mut Vec<Stat>) -> PResult<()> = match self.t {
            Token::Char(b'=') => Self::for_num,
            Token::Char(b',') | Token::In => Self::for_list,
            _ => return Err(self.error("'=' or 'in' expected")),
        };
        parse(self, var, line, out)?;
        self.check_match(&Token::End, &Token::For, line)?;
        self.leave_block();
        Ok(())
    }

    /// `NAME = exp, exp [, exp] forbody`; pushes the statement before the
    /// closing `end` is checked.
    fn for_num(&mut self, var: LuaStr, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.new_localvar("(for index)".into(), 0)?;
        self.new_localvar("(for limit)".into(), 1)?;
        self.new_localvar("(for step)".into(), 2)?;
        self.new_localvar(var.clone(), 3)?;
        self.check_next_char(b'=')?;
        let start = self.expr()?;
        self.check_next_char(b',')?;
        let limit = self.expr()?;
        let step = if self.test_next_char(b',')? { Some(self.expr()?) } else { None };
        let body = self.for_body(1)?;
        let kind = StatKind::NumericFor(Box::new(NumericFor { var, start, limit, step, body }));
        out.push(Stat { line, kind });
        Ok(())
    }

    /// `NAME {, NAME} in explist forbody`
    fn for_list(&mut self, first: LuaStr, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.new_localvar("(for generator)".into(), 0)?;
        self.new_localvar("(for state)".into(), 1)?;
        self.new_localvar("(for control)".into(), 2)?;
        self.new_localvar(first.clone(), 3)?;
        let mut vars = vec![first];
        while self.test_next_char(b',')? {
            let name = self.check_name()?;
            self.new_localvar(name.clone(), 3 + vars.len())?;
            vars.push(name);
        }
        self.check_next(&Token::In)?;
        let iter_line = self.line();
        let exprs = self.expr_list()?;
        let body = self.for_body(vars.len())?;
        let kind = StatKind::GenericFor { vars, exprs, body, iter_line };
        out.push(Stat { line, kind });
        Ok(())
    }

    /// `do block` of both loops: the three control locals are in scope for
    /// the loop, the declared variables in an inner scope.
    fn for_body(&mut self, nvars: usize) -> PResult<Block> {
        self.adjust_localvars(3);
        self.check_next(&Token::Do)?;
        self.enter_block(false);
        self.adjust_localvars(nvars);
        let body = self.block()?;
        self.leave_block();
        Ok(body)
    }

    fn func_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        // funcname -> NAME {'.' NAME} [':' NAME]
        let base_line = self.line();
        let base = self.check_name()?;
        self.resolve(self.fs.len() - 1, &base)?;
        let mut fields = Vec::new();
        while self.is_char(b'.') {
            self.next()?;
            fields.push(self.check_name()?);
        }
        let method = if self.is_char(b':') {
            self.next()?;
            Some(self.check_name()?)
        } else {
            None
        };
        let func = Box::new(self.body(method.is_some(), line)?);
        let name = FuncName { base, base_line, fields, method };
        out.push(Stat { line, kind: StatKind::Function { name, func } });
        Ok(())
    }

    /// `local function NAME body` or `local NAME {, NAME} [= explist]`
    fn local_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        let parse: fn(&mut Self, u32, &mut Vec<Stat>) -> PResult<()> =
            if self.test_next(&Token::Function)? { Self::local_func } else { Self::local_names };
        parse(self, line, out)
    }

    fn local_func(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        let name = self.check_name()?;
        self.new_localvar(name.clone(), 0)?;
        self.adjust_localvars(1);
        let line_defined = self.line();
        let func = Box::new(self.body(false, line_defined)?);
        out.push(Stat { line, kind: StatKind::LocalFunction { name, func } });
        Ok(())
    }

    fn local_names(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        let mut names = Vec::new();
        loop {
            let name = self.check_name()?;
            self.new_localvar(name.clone(), names.len())?;
            names.push(name);
            if !self.test_next_char(b',')? {
                break;
            }
        }
        let values = if self.test_next_char(b'=')? { self.expr_list()? } else { Vec::new() };
        self.adjust_localvars(names.len());
        out.push(Stat { line, kind: StatKind::Local { names, values } });
        Ok(())
    }

    fn ret_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        self.next()?;
        let values = if block_follow(&self.t) || self.is_char(b';') { Vec::new() } else { self.expr_list()? };
        out.push(Stat { line, kind: StatKind::Return(values) });
        Ok(())
    }

    /// A call statement or an assignment (lua5.1's `exprstat`).
    fn expr_stat(&mut self, line: u32, out: &mut Vec<Stat>) -> PResult<()> {
        let first = self.primary_exp()?;
        if matches!(first.kind, ExprKind::Call { .. } | ExprKind::MethodCall(_)) {
            out.push(Stat { line, kind: StatKind::Call(first) });
            return Ok(());
        }
        let mut targets = vec![first];
        let values = self.assignment(&mut targets)?;
        out.push(Stat { line, kind: StatKind::Assign { targets, values } });
        Ok(())
    }

    /// The rest of an assignment after its first target (lua5.1's `assignment`).
    fn assignment(&mut self, targets: &mut Vec<Expr>) -> PResult<Vec<Expr>> {
        loop {
            let last = targets.last().expect("at least one target");
            if !matches!(last.kind, ExprKind::Name(_) | ExprKind::Index { .. }) {
                return Err(self.error("syntax error"));
            }
            if !self.test_next_char(b',')? {
                break;
            }
            let target = self.primary_exp()?;
            // lua5.1 recurses once per target and bounds it by the C-call budget.
            let limit = LUAI_MAXCCALLS.saturating_sub(self.nccalls) as usize;
            if targets.len() > limit {
                return Err(self.error_limit(self.fs.len() - 1, limit, "variables in assignment"));
            }
            targets.push(target);
        }
        self.check_next_char(b'=')?;
        self.expr_list()
    }

    // ----------------------------------------------------------------
    // Functions
    // ----------------------------------------------------------------

    /// `( parlist ) chunk end`; `line` is the function's `linedefined`.
    fn body(&mut self, needself: bool, line: u32) -> PResult<FuncBody> {
        self.fs.push(FuncState::new(line));
        self.check_next_char(b'(')?;
        let mut params = Vec::new();
        if needself {
            // The implicit first parameter of methods (not listed in `params`).
            self.new_localvar("self".into(), 0)?;
            self.adjust_localvars(1);
        }
        self.par_list(&mut params)?;
        self.check_next_char(b')')?;
        let body = self.chunk()?;
        let last_line_defined = self.line();
        self.check_match(&Token::End, &Token::Function, line)?;
        let fs = self.fs.pop().expect("function state");
        Ok(FuncBody {
            params,
            is_method: needself,
            is_vararg: fs.is_vararg,
            uses_vararg: fs.uses_vararg,
            line_defined: line,
            last_line_defined,
            body,
        })
    }

    fn par_list(&mut self, params: &mut Vec<LuaStr>) -> PResult<()> {
        let mut nparams = 0;
        if !self.is_char(b')') {
            loop {
                match self.t {
                    Token::Name(_) => {
                        let name = self.check_name()?;
                        self.new_localvar(name.clone(), nparams)?;
                        nparams += 1;
                        params.push(name);
                    }
                    Token::Dots => {
                        self.next()?;
                        // LUA_COMPAT_VARARG: the implicit `arg` local.
                        self.new_localvar("arg".into(), nparams)?;
                        nparams += 1;
                        self.cur().is_vararg = true;
                    }
                    _ => return Err(self.error("<name> or '...' expected")),
                }
                if self.cur().is_vararg || !self.test_next_char(b',')? {
                    break;
                }
            }
        }
        self.adjust_localvars(nparams);
        Ok(())
    }

    // ----------------------------------------------------------------
    // Expressions
    // ----------------------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        self.subexpr(0)
    }

    /// `expr {',' expr}`
    fn expr_list(&mut self) -> PResult<Vec<Expr>> {
        let mut list = Vec::new();
        loop {
            self.push_expr(&mut list)?;
            if !self.test_next_char(b',')? {
                return Ok(list);
            }
        }
    }

    /// `expr`, appended to `list` (keeps the result temporaries out of
    /// `expr_list`'s frame, which is on the recursion path).
    fn push_expr(&mut self, list: &mut Vec<Expr>) -> PResult<()> {
        let e = self.expr()?;
        self.room_for_one(list)?;
        list.push(e);
        Ok(())
    }

    /// `(simpleexp | unop subexpr) { binop subexpr }` for binary operators whose
    /// left priority exceeds `limit`. (lua5.1's version also returns the first
    /// operator not consumed; that is always the current token's operator.)
    fn subexpr(&mut self, limit: u8) -> PResult<Expr> {
        self.enter_level()?;
        let first: fn(&mut Self) -> PResult<Expr> = if unop(&self.t).is_some() { Self::unary_exp } else { Self::simple_exp };
        let e = first(self)?;
        let r = self.binary_exp(e, limit);
        self.leave_level();
        r
    }

    /// `unop subexpr`
    fn unary_exp(&mut self) -> PResult<Expr> {
        let op = unop(&self.t).expect("at a unary operator");
        let line = self.line();
        self.next()?;
        let operand = self.subexpr(UNARY_PRIORITY)?;
        Ok(self.expr_at(line, ExprKind::Unary { op, operand: Box::new(operand) }))
    }

    /// `{ binop subexpr }` after the first operand `e`.
    fn binary_exp(&mut self, mut e: Expr, limit: u8) -> PResult<Expr> {
        while let Some(op) = binop(&self.t) {
            let (left, right) = op.priority();
            if left <= limit {
                break;
            }
            let line = self.line();
            self.next()?;
            let rhs = Box::new(self.subexpr(right)?);
            let lhs = Box::new(e);
            e = self.expr_at(line, ExprKind::Binary { op, lhs, rhs });
        }
        Ok(e)
    }

    fn simple_exp(&mut self) -> PResult<Expr> {
        // Dispatching through a function pointer gives one call site, hence
        // one result slot in the frame of unoptimised builds.
        let parse: fn(&mut Self) -> PResult<Expr> = match self.t {
            Token::Number(_) | Token::String(_) | Token::Nil | Token::True | Token::False | Token::Dots => Self::literal,
            Token::Char(b'{') => Self::constructor,
            Token::Function => Self::function_exp,
            _ => Self::primary_exp,
        };
        parse(self)
    }

    /// A single-token expression: constants and `...`.
    fn literal(&mut self) -> PResult<Expr> {
        let line = self.line();
        let kind = match &self.t {
            Token::Number(n) => ExprKind::Number(*n),
            Token::String(s) => ExprKind::String(s.clone()),
            Token::Nil => ExprKind::Nil,
            Token::True => ExprKind::True,
            Token::False => ExprKind::False,
            _ => {
                if !self.cur().is_vararg {
                    return Err(self.error("cannot use '...' outside a vararg function"));
                }
                self.cur().uses_vararg = true;
                ExprKind::Vararg
            }
        };
        self.next()?;
        Ok(self.expr_at(line, kind))
    }

    /// `function body` as an expression.
    fn function_exp(&mut self) -> PResult<Expr> {
        let line = self.line();
        self.next()?;
        let line_defined = self.line();
        let body = self.body(false, line_defined)?;
        Ok(self.expr_at(line, ExprKind::Function(Box::new(body))))
    }

    /// `NAME | '(' expr ')'`
    fn prefix_exp(&mut self) -> PResult<Expr> {
        let parse: fn(&mut Self) -> PResult<Expr> = match self.t {
            Token::Char(b'(') => Self::paren_exp,
            Token::Name(_) => Self::single_var,
            _ => return Err(self.error("unexpected symbol")),
        };
        parse(self)
    }

    /// `'(' expr ')'`
    fn paren_exp(&mut self) -> PResult<Expr> {
        let line = self.line();
        self.next()?;
        let inner = self.expr()?;
        self.check_match(&Token::Char(b')'), &Token::Char(b'('), line)?;
        Ok(self.expr_at(line, ExprKind::Paren(Box::new(inner))))
    }

    /// `prefixexp { '.' NAME | '[' exp ']' | ':' NAME funcargs | funcargs }`
    fn primary_exp(&mut self) -> PResult<Expr> {
        let mut e = self.prefix_exp()?;
        while matches!(self.t, Token::Char(b'.' | b'[' | b':' | b'(' | b'{') | Token::String(_)) {
            e = self.suffix(e)?;
        }
        Ok(e)
    }

    /// One field, index, method call or call applied to `e`.
    fn suffix(&mut self, e: Expr) -> PResult<Expr> {
        if self.is_char(b':') {
            // (Its object goes into the method call's own box.)
            return self.method_suffix(e);
        }
        let parse: fn(&mut Self, Box<Expr>) -> PResult<Expr> = match self.t {
            Token::Char(b'.') => Self::field_suffix,
            Token::Char(b'[') => Self::index_suffix,
            _ => Self::call_suffix,
        };
        parse(self, Box::new(e))
    }

    /// `'.' NAME`
    fn field_suffix(&mut self, object: Box<Expr>) -> PResult<Expr> {
        let line = self.line();
        self.next()?;
        let key_line = self.line();
        let name = self.check_name()?;
        let key = Box::new(self.expr_at(key_line, ExprKind::String(name)));
        Ok(self.expr_at(line, ExprKind::Index { object, key }))
    }

    /// `'[' exp ']'`
    fn index_suffix(&mut self, object: Box<Expr>) -> PResult<Expr> {
        let line = self.line();
        let key = Box::new(self.yindex()?);
        Ok(self.expr_at(line, ExprKind::Index { object, key }))
    }

    /// `':' NAME funcargs`
    fn method_suffix(&mut self, object: Expr) -> PResult<Expr> {
        self.next()?;
        let method = self.check_name()?;
        let line = self.line();
        let args = self.func_args()?.into_boxed_slice();
        Ok(self.expr_at(line, ExprKind::MethodCall(Box::new(MethodCall { object, method, args }))))
    }

    /// `funcargs`
    fn call_suffix(&mut self, func: Box<Expr>) -> PResult<Expr> {
        let line = self.line();
        let args = self.func_args()?.into_boxed_slice();
        Ok(self.expr_at(line, ExprKind::Call { func, args }))
    }

    /// `'[' expr ']'`
    fn yindex(&mut self) -> PResult<Expr> {
        self.next()?;
        let e = self.expr()?;
        self.check_next_char(b']')?;
        Ok(e)
    }

    /// Call arguments. lua5.1 attributes the call to the line of their first token.
    fn func_args(&mut self) -> PResult<Vec<Expr>> {
        let parse: fn(&mut Self) -> PResult<Vec<Expr>> = match self.t {
            Token::Char(b'(') => Self::paren_args,
            Token::Char(b'{') => Self::table_args,
            Token::String(_) => Self::string_args,
            _ => return Err(self.error("function arguments expected")),
        };
        parse(self)
    }

    /// `'(' [explist] ')'`
    fn paren_args(&mut self) -> PResult<Vec<Expr>> {
        let line = self.line();
        if line != self.lastline {
            return Err(self.error("ambiguous syntax (function call x new statement)"));
        }
        self.next()?;
        let args = if self.is_char(b')') { Vec::new() } else { self.expr_list()? };
        self.check_match(&Token::Char(b')'), &Token::Char(b'('), line)?;
        Ok(args)
    }

    /// `constructor`
    fn table_args(&mut self) -> PResult<Vec<Expr>> {
        Ok(vec![self.constructor()?])
    }

    /// `STRING`
    fn string_args(&mut self) -> PResult<Vec<Expr>> {
        let line = self.line();
        let Token::String(s) = &self.t else { unreachable!("at a string") };
        let s = ExprKind::String(s.clone());
        self.next()?;
        Ok(vec![self.expr_at(line, s)])
    }

    /// Table constructor `{ [field {sep field} [sep]] }`.
    fn constructor(&mut self) -> PResult<Expr> {
        let line = self.line();
        self.check_next_char(b'{')?;
        let mut fields = Vec::new();
        loop {
            if self.is_char(b'}') {
                break;
            }
            self.table_field(&mut fields)?;
            if !(self.test_next_char(b',')? || self.test_next_char(b';')?) {
                break;
            }
        }
        self.check_match(&Token::Char(b'}'), &Token::Char(b'{'), line)?;
        Ok(self.expr_at(line, ExprKind::Table(fields)))
    }

    /// `NAME = exp | '[' exp ']' = exp | exp`
    fn table_field(&mut self, fields: &mut Vec<TableField>) -> PResult<()> {
        // lua5.1 looks one token ahead after a name to tell `name = v` from an expression.
        let named = matches!(self.t, Token::Name(_)) && *self.peek()? == Token::Char(b'=');
        let parse: fn(&mut Self, &mut Vec<TableField>) -> PResult<()> = if named {
            Self::named_field
        } else if self.is_char(b'[') {
            Self::keyed_field
        } else {
            Self::positional_field
        };
        self.room_for_one(fields)?;
        parse(self, fields)
    }

    fn named_field(&mut self, fields: &mut Vec<TableField>) -> PResult<()> {
        let name = self.check_name()?;
        self.check_next_char(b'=')?;
        let value = self.expr()?;
        fields.push(TableField::Named { name, value });
        Ok(())
    }

    fn keyed_field(&mut self, fields: &mut Vec<TableField>) -> PResult<()> {
        let key = self.yindex()?;
        self.check_next_char(b'=')?;
        let value = self.expr()?;
        fields.push(TableField::Keyed { key: Box::new(key), value });
        Ok(())
    }

    fn positional_field(&mut self, fields: &mut Vec<TableField>) -> PResult<()> {
        let value = self.expr()?;
        fields.push(TableField::Positional(value));
        Ok(())
    }
}
