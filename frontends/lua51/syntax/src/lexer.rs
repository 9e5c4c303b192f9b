//! The Lua 5.1 lexer, a faithful port of lua5.1's `llex.c`.
//!
//! It works on bytes with the "C" locale's character classes (bytes ≥ 0x80
//! are never letters or spaces) and reproduces lua5.1's quirks that are
//! visible to programs: which texts form one (possibly malformed) numeral,
//! how string escapes and long brackets are read, how `\r\n` / `\n\r` count as
//! one line, and the text printed after `near` in error messages, which is
//! lua5.1's token buffer (so a string token prints with its quotes and its
//! escapes already decoded, cut at the first NUL byte).

use std::borrow::Cow;

use crate::ast::LuaStr;
use crate::error::SyntaxError;
use crate::number::str2d;

/// A token. Reserved words and multi-character symbols have their own
/// variants; every other single character is a [`Token::Char`].
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    And,
    Break,
    Do,
    Else,
    Elseif,
    End,
    False,
    For,
    Function,
    If,
    In,
    Local,
    Nil,
    Not,
    Or,
    Repeat,
    Return,
    Then,
    True,
    Until,
    While,
    /// `..`
    Concat,
    /// `...`
    Dots,
    /// `==`
    Eq,
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `~=`
    Ne,
    Number(f64),
    Name(LuaStr),
    /// A string literal's value (escapes decoded).
    String(LuaStr),
    /// End of input.
    Eof,
    /// Any other single byte: `+ - * / % ^ # < > = ( ) { } [ ] ; : , .` and
    /// also bytes that are no valid token (the parser rejects them).
    Char(u8),
}

const RESERVED: [(&[u8], Token); 21] = [
    (b"and", Token::And),
    (b"break", Token::Break),
    (b"do", Token::Do),
    (b"else", Token::Else),
    (b"elseif", Token::Elseif),
    (b"end", Token::End),
    (b"false", Token::False),
    (b"for", Token::For),
    (b"function", Token::Function),
    (b"if", Token::If),
    (b"in", Token::In),
    (b"local", Token::Local),
    (b"nil", Token::Nil),
    (b"not", Token::Not),
    (b"or", Token::Or),
    (b"repeat", Token::Repeat),
    (b"return", Token::Return),
    (b"then", Token::Then),
    (b"true", Token::True),
    (b"until", Token::Until),
    (b"while", Token::While),
];

/// The reserved word spelled `word`, if any.
pub fn reserved_word(word: &[u8]) -> Option<Token> {
    RESERVED.iter().find(|(w, _)| *w == word).map(|(_, t)| t.clone())
}

impl Token {
    /// lua5.1's `luaX_token2str`: how the token *kind* is named in messages
    /// such as `'=' expected`. Names, strings and numbers print as
    /// `<name>`, `<string>`, `<number>`; control characters as `char(N)`.
    pub fn symbol(&self) -> Vec<u8> {
        let s: &str = match self {
            Token::Concat => "..",
            Token::Dots => "...",
            Token::Eq => "==",
            Token::Ge => ">=",
            Token::Le => "<=",
            Token::Ne => "~=",
            Token::Number(_) => "<number>",
            Token::Name(_) => "<name>",
            Token::String(_) => "<string>",
            Token::Eof => "<eof>",
            Token::Char(c) => {
                return if c.is_ascii_control() { format!("char({c})").into_bytes() } else { vec![*c] };
            }
            reserved => {
                let (word, _) = RESERVED.iter().find(|(_, t)| t == reserved).expect("all remaining tokens are reserved words");
                return word.to_vec();
            }
        };
        s.as_bytes().to_vec()
    }
}

/// End of input, lua5.1's `EOZ`.
const EOZ: i32 = -1;

fn is_newline(c: i32) -> bool {
    c == i32::from(b'\n') || c == i32::from(b'\r')
}

fn as_byte(c: i32) -> Option<u8> {
    u8::try_from(c).ok()
}

fn is_digit(c: i32) -> bool {
    as_byte(c).is_some_and(|b| b.is_ascii_digit())
}

fn is_alpha(c: i32) -> bool {
    as_byte(c).is_some_and(|b| b.is_ascii_alphabetic())
}

fn is_alnum(c: i32) -> bool {
    as_byte(c).is_some_and(|b| b.is_ascii_alphanumeric())
}

/// C `isspace` in the "C" locale.
fn is_space(c: i32) -> bool {
    as_byte(c).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
}

/// Result of lexer operations; errors are boxed to keep results small on the
/// parser's recursive paths.
pub type LexResult<T> = Result<T, Box<SyntaxError>>;

/// Where a streamed chunk's text comes from, a piece at a time (lua5.1's
/// `lua_Reader`): `None` or an empty piece is the end of the input. Like
/// lua5.1's `luaZ_fill`, the lexer asks again each time it needs a byte
/// past the end, so the reader sees exactly as many calls as under lua5.1.
pub type Reader<'a> = &'a mut dyn FnMut() -> Option<Vec<u8>>;

/// The lexer state: input, position, line and lua5.1's token buffer.
pub struct Lexer<'a> {
    /// The whole source, or the reader's current piece.
    src: Cow<'a, [u8]>,
    /// Index of the byte after `current`.
    pos: usize,
    /// Supplies the pieces after `src`, for a streamed chunk.
    reader: Option<Reader<'a>>,
    /// The current character, or [`EOZ`].
    current: i32,
    line: u32,
    /// lua5.1's `ls->buff`: the text of the token being (or last) read.
    buf: Vec<u8>,
    /// `buf` could not grow (see `save`).
    buffer_failed: bool,
    chunk_name: Vec<u8>,
    /// The names read so far: a name is mostly a repeat, and a repeat shares the first one's
    /// bytes instead of allocating its own.
    names: std::collections::HashSet<LuaStr, crate::names::BuildNameHasher>,
}

impl Lexer<'_> {
    /// The name in `buf`, shared with the earlier ones of the same bytes.
    fn name(&mut self) -> LuaStr {
        if let Some(n) = self.names.get(self.buf.as_slice()) {
            return n.clone();
        }
        let n = LuaStr::from(self.buf.as_slice());
        self.names.insert(n.clone());
        n
    }
}

impl std::fmt::Debug for Lexer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexer").field("pos", &self.pos).field("line", &self.line).finish_non_exhaustive()
    }
}

impl<'a> Lexer<'a> {
    /// A lexer for `src`; errors are reported under `chunk_name` (the printed
    /// form, see [`crate::chunk_id`]).
    pub fn new(src: &'a [u8], chunk_name: impl AsRef<[u8]>) -> Self {
        Self::with_source(Cow::Borrowed(src), None, chunk_name)
    }

    /// A lexer that pulls its input from `reader` as it goes (lua5.1's
    /// `lua_load`): a syntax error stops the reading where lua5.1 stops it.
    pub fn streaming(reader: Reader<'a>, chunk_name: impl AsRef<[u8]>) -> Self {
        Self::with_source(Cow::Owned(Vec::new()), Some(reader), chunk_name)
    }

    fn with_source(src: Cow<'a, [u8]>, reader: Option<Reader<'a>>, chunk_name: impl AsRef<[u8]>) -> Self {
        let mut lx = Lexer {
            src,
            pos: 0,
            reader,
            current: EOZ,
            line: 1,
            buf: Vec::new(),
            buffer_failed: false,
            chunk_name: chunk_name.as_ref().to_vec(),
            names: Default::default(),
        };
        lx.next();
        lx
    }

    /// The current line: where the last token read ends (lua5.1's `ls->linenumber`).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The text lua5.1's `txtToken` prints for the last name, string or
    /// number token: the token buffer up to its first NUL byte.
    pub fn token_text(&self) -> &[u8] {
        match self.buf.iter().position(|&b| b == 0) {
            Some(nul) => &self.buf[..nul],
            None => &self.buf,
        }
    }

    /// The chunk name errors are reported under.
    pub fn chunk_name(&self) -> &[u8] {
        &self.chunk_name
    }

    /// Builds an error at the current line. `near` is the already rendered
    /// token text, `None` for messages without one.
    pub fn error(&self, message: impl Into<String>, near: Option<&[u8]>) -> Box<SyntaxError> {
        Box::new(SyntaxError { chunk_name: self.chunk_name.clone(), line: self.line, message: message.into(), near: near.map(Into::into) })
    }

    /// lua5.1's `luaX_lexerror(ls, msg, token)`: the error text for `token`
    /// is the token buffer for names, strings and numbers, the symbol
    /// otherwise. Token byte 0 means "no token" to lua5.1, hence no `near`.
    pub fn error_near(&self, message: impl Into<String>, token: &Token) -> Box<SyntaxError> {
        match token {
            Token::Name(_) | Token::String(_) | Token::Number(_) => self.error(message, Some(self.token_text())),
            Token::Char(0) => self.error(message, None),
            other => self.error(message, Some(&other.symbol())),
        }
    }

    fn next(&mut self) {
        self.current = match self.src.get(self.pos) {
            Some(&b) => i32::from(b),
            None => return self.fill(),
        };
        self.pos += 1;
    }

    /// lua5.1's `luaZ_fill`: the next piece's first byte, or [`EOZ`].
    #[cold]
    fn fill(&mut self) {
        self.current = EOZ;
        let Some(reader) = self.reader.as_mut() else { return };
        match reader() {
            Some(piece) if !piece.is_empty() => {
                self.current = i32::from(piece[0]);
                self.src = Cow::Owned(piece);
                self.pos = 1;
            }
            _ => {}
        }
    }

    fn save(&mut self, c: i32) {
        // Only called with a real character; EOZ is never saved.
        if self.buf.len() == self.buf.capacity() && self.buf.try_reserve(1).is_err() {
            // A token longer than the memory left (a string of hundreds of megabytes): the
            // token is cut short, and `lex` reports "not enough memory" when it ends.
            self.buffer_failed = true;
            return;
        }
        self.buf.push(c as u8);
    }

    fn save_and_next(&mut self) {
        self.save(self.current);
        self.next();
    }

    /// lua5.1's `check_next`, including its use of `strchr`: a NUL byte
    /// matches every set (it finds the string terminator), so `1\0` lexes as
    /// the number 1 and `.\0` as `..`.
    fn check_next(&mut self, set: &[u8]) -> bool {
        let Some(c) = as_byte(self.current) else {
            return false;
        };
        if c != 0 && !set.contains(&c) {
            return false;
        }
        self.save_and_next();
        true
    }

    fn inc_line_number(&mut self) {
        let old = self.current;
        self.next();
        if is_newline(self.current) && self.current != old {
            self.next();
        }
        self.line = self.line.saturating_add(1);
    }

    /// Reads the next token (lua5.1's `llex`).
    pub fn lex(&mut self) -> LexResult<Token> {
        let token = self.lex_token();
        if self.buffer_failed {
            self.buffer_failed = false;
            return Err(self.error(crate::error::OUT_OF_MEMORY, None));
        }
        token
    }

    fn lex_token(&mut self) -> LexResult<Token> {
        self.buf.clear();
        loop {
            let c = self.current;
            let Some(b) = as_byte(c) else {
                return Ok(Token::Eof);
            };
            match b {
                b'\n' | b'\r' => self.inc_line_number(),
                b'-' => {
                    self.next();
                    if self.current != i32::from(b'-') {
                        return Ok(Token::Char(b'-'));
                    }
                    // A comment.
                    self.next();
                    if self.current == i32::from(b'[') {
                        let sep = self.skip_sep();
                        self.buf.clear();
                        if sep >= 0 {
                            self.read_long_string(false, sep as usize)?;
                            self.buf.clear();
                            continue;
                        }
                    }
                    while !is_newline(self.current) && self.current != EOZ {
                        self.next();
                    }
                }
                b'[' => {
                    let sep = self.skip_sep();
                    if sep >= 0 {
                        let s = self.read_long_string(true, sep as usize)?;
                        return Ok(Token::String(s));
                    } else if sep == -1 {
                        return Ok(Token::Char(b'['));
                    } else {
                        return Err(self.error("invalid long string delimiter", Some(self.token_text())));
                    }
                }
                b'=' => return Ok(self.one_or_two(b'=', Token::Eq)),
                b'<' => return Ok(self.one_or_two(b'<', Token::Le)),
                b'>' => return Ok(self.one_or_two(b'>', Token::Ge)),
                b'~' => return Ok(self.one_or_two(b'~', Token::Ne)),
                b'"' | b'\'' => return self.read_string(c),
                b'.' => {
                    self.save_and_next();
                    if self.check_next(b".") {
                        if self.check_next(b".") {
                            return Ok(Token::Dots);
                        }
                        return Ok(Token::Concat);
                    } else if !is_digit(self.current) {
                        return Ok(Token::Char(b'.'));
                    }
                    return self.read_numeral();
                }
                _ if is_space(c) => self.next(),
                _ if is_digit(c) => return self.read_numeral(),
                _ if is_alpha(c) || b == b'_' => {
                    loop {
                        self.save_and_next();
                        if !(is_alnum(self.current) || self.current == i32::from(b'_')) {
                            break;
                        }
                    }
                    return Ok(match reserved_word(&self.buf) {
                        Some(word) => word,
                        None => Token::Name(self.name()),
                    });
                }
                _ => {
                    self.next();
                    return Ok(Token::Char(b));
                }
            }
        }
    }

    /// `=`/`<`/`>`/`~`, or the two-character token when followed by `=`.
    fn one_or_two(&mut self, first: u8, two: Token) -> Token {
        self.next();
        if self.current == i32::from(b'=') {
            self.next();
            two
        } else {
            Token::Char(first)
        }
    }

    /// lua5.1's `read_numeral`: digits and dots, an optional exponent marker
    /// with optional sign, then any alphanumerics; converted as a whole.
    fn read_numeral(&mut self) -> LexResult<Token> {
        loop {
            self.save_and_next();
            if !(is_digit(self.current) || self.current == i32::from(b'.')) {
                break;
            }
        }
        if self.check_next(b"Ee") {
            self.check_next(b"+-");
        }
        while is_alnum(self.current) || self.current == i32::from(b'_') {
            self.save_and_next();
        }
        match str2d(&self.buf) {
            Some(v) => Ok(Token::Number(v)),
            None => Err(self.error("malformed number", Some(self.token_text()))),
        }
    }

    /// lua5.1's `skip_sep`: reads `[` or `]` and the `=`s after it. Returns
    /// the level if the same bracket follows, else `-level - 1`.
    fn skip_sep(&mut self) -> isize {
        let s = self.current;
        let mut count: isize = 0;
        self.save_and_next();
        while self.current == i32::from(b'=') {
            self.save_and_next();
            count += 1;
        }
        if self.current == s {
            count
        } else {
            -count - 1
        }
    }

    /// lua5.1's `read_long_string` (with `LUA_COMPAT_LSTR == 1`): a long string
    /// (`string` true) or long comment of level `sep`, the opening bracket's
    /// first `[` and `=`s already read.
    fn read_long_string(&mut self, string: bool, sep: usize) -> LexResult<LuaStr> {
        self.save_and_next(); // second `[`
        if is_newline(self.current) {
            self.inc_line_number(); // a first newline is skipped
        }
        loop {
            match as_byte(self.current) {
                None => {
                    let msg = if string { "unfinished long string" } else { "unfinished long comment" };
                    return Err(self.error_near(msg, &Token::Eof));
                }
                Some(b'[') => {
                    if self.skip_sep() == sep as isize {
                        self.save_and_next();
                        if sep == 0 {
                            return Err(self.error_near("nesting of [[...]] is deprecated", &Token::Char(b'[')));
                        }
                    }
                }
                Some(b']') => {
                    if self.skip_sep() == sep as isize {
                        self.save_and_next();
                        break;
                    }
                }
                Some(b'\n' | b'\r') => {
                    self.save(i32::from(b'\n'));
                    self.inc_line_number();
                    if !string {
                        self.buf.clear();
                    }
                }
                Some(_) => {
                    if string {
                        self.save_and_next();
                    } else {
                        self.next();
                    }
                }
            }
        }
        if !string {
            return Ok(LuaStr::default());
        }
        let delim = 2 + sep;
        Ok(LuaStr::from(&self.buf[delim..self.buf.len() - delim]))
    }

    /// lua5.1's `read_string` for a string delimited by `del`.
    fn read_string(&mut self, del: i32) -> LexResult<Token> {
        self.save_and_next();
        while self.current != del {
            match as_byte(self.current) {
                None => return Err(self.error_near("unfinished string", &Token::Eof)),
                Some(b'\n' | b'\r') => {
                    return Err(self.error("unfinished string", Some(self.token_text())));
                }
                Some(b'\\') => {
                    self.next(); // the backslash is not saved
                    let Some(e) = as_byte(self.current) else {
                        continue; // EOZ: reported by the loop
                    };
                    let c = match e {
                        b'a' => 0x07,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'v' => 0x0b,
                        b'\n' | b'\r' => {
                            self.save(i32::from(b'\n'));
                            self.inc_line_number();
                            continue;
                        }
                        d if d.is_ascii_digit() => {
                            let mut value: u32 = 0;
                            let mut i = 0;
                            loop {
                                value = 10 * value + u32::from(self.current as u8 - b'0');
                                self.next();
                                i += 1;
                                if i >= 3 || !is_digit(self.current) {
                                    break;
                                }
                            }
                            if value > 255 {
                                return Err(self.error("escape sequence too large", Some(self.token_text())));
                            }
                            self.save(value as i32);
                            continue;
                        }
                        _ => {
                            // `\\`, `\"`, `\'`, and any other `\c` mean `c`.
                            self.save_and_next();
                            continue;
                        }
                    };
                    self.save(i32::from(c));
                    self.next();
                }
                Some(_) => self.save_and_next(),
            }
        }
        self.save_and_next(); // closing delimiter
        Ok(Token::String(LuaStr::from(&self.buf[1..self.buf.len() - 1])))
    }
}

/// A token with the line lua5.1 reports for it (where the token ends).
#[derive(Debug, Clone, PartialEq)]
pub struct LineToken {
    pub token: Token,
    pub line: u32,
}

/// Splits a whole source into tokens (up to and including [`Token::Eof`]).
/// Mostly for tests and tools; the parser pulls tokens one at a time.
pub fn tokenize(src: &[u8], chunk_name: impl AsRef<[u8]>) -> Result<Vec<LineToken>, SyntaxError> {
    let mut lx = Lexer::new(src, chunk_name);
    let mut out = Vec::new();
    loop {
        let token = lx.lex().map_err(|e| *e)?;
        let done = token == Token::Eof;
        out.push(LineToken { token, line: lx.line() });
        if done {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Token> {
        tokenize(src.as_bytes(), "t").unwrap_or_else(|e| panic!("{src:?}: {e}")).into_iter().map(|t| t.token).collect()
    }

    fn one(src: &[u8]) -> Token {
        let t = tokenize(src, "t").unwrap_or_else(|e| panic!("{src:?}: {e}"));
        assert_eq!(t.len(), 2, "{src:?}: {t:?}");
        t[0].token.clone()
    }

    fn string(src: &[u8]) -> Vec<u8> {
        match one(src) {
            Token::String(s) => s.as_bytes().to_vec(),
            t => panic!("{src:?}: not a string: {t:?}"),
        }
    }

    fn number(src: &str) -> f64 {
        match one(src.as_bytes()) {
            Token::Number(v) => v,
            t => panic!("{src:?}: not a number: {t:?}"),
        }
    }

    fn err(src: &[u8]) -> String {
        match tokenize(src, "t") {
            Ok(t) => panic!("{src:?}: expected an error, got {t:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reserved_words() {
        use Token::*;
        assert_eq!(
            toks("and break do else elseif end false for function if in local nil not or repeat return then true until while"),
            vec![And, Break, Do, Else, Elseif, End, False, For, Function, If, In, Local, Nil, Not, Or, Repeat, Return, Then, True, Until, While, Eof]
        );
        // Case matters, and reserved words are only whole words.
        assert_eq!(toks("End"), vec![Name("End".into()), Eof]);
        assert_eq!(toks("ends _end end_"), vec![Name("ends".into()), Name("_end".into()), Name("end_".into()), Eof]);
    }

    #[test]
    fn symbols() {
        use Token::*;
        assert_eq!(
            toks("+ - * / % ^ # == ~= <= >= < > = ( ) { } [ ] ; : , . .. ..."),
            vec![
                Char(b'+'),
                Char(b'-'),
                Char(b'*'),
                Char(b'/'),
                Char(b'%'),
                Char(b'^'),
                Char(b'#'),
                Eq,
                Ne,
                Le,
                Ge,
                Char(b'<'),
                Char(b'>'),
                Char(b'='),
                Char(b'('),
                Char(b')'),
                Char(b'{'),
                Char(b'}'),
                Char(b'['),
                Char(b']'),
                Char(b';'),
                Char(b':'),
                Char(b','),
                Char(b'.'),
                Concat,
                Dots,
                Eof
            ]
        );
        // Maximal munch, and `~` alone is a (useless) token.
        assert_eq!(toks("...."), vec![Dots, Char(b'.'), Eof]);
        assert_eq!(toks("a..b"), vec![Name("a".into()), Concat, Name("b".into()), Eof]);
        assert_eq!(toks("~ ="), vec![Char(b'~'), Char(b'='), Eof]);
        assert_eq!(toks("==="), vec![Eq, Char(b'='), Eof]);
        // Bytes that are no token at all still lex; the parser rejects them.
        assert_eq!(toks("@ $ !"), vec![Char(b'@'), Char(b'$'), Char(b'!'), Eof]);
        assert_eq!(one(b"\xff"), Char(0xff));
    }

    #[test]
    fn names() {
        use Token::*;
        assert_eq!(toks("_ a1 _x_9 Abc"), vec![Name("_".into()), Name("a1".into()), Name("_x_9".into()), Name("Abc".into()), Eof]);
        // Only ASCII letters ("C" locale): a UTF-8 letter is two unknown bytes.
        assert_eq!(toks("é"), vec![Char(0xc3), Char(0xa9), Eof]);
    }

    #[test]
    fn numbers() {
        assert_eq!(number("3"), 3.0);
        assert_eq!(number("345"), 345.0);
        assert_eq!(number("0xff"), 255.0);
        assert_eq!(number("0XA"), 10.0);
        assert_eq!(number("3.0"), 3.0);
        assert_eq!(number("3.25"), 3.25);
        assert_eq!(number("325.0e-2"), 3.25);
        assert_eq!(number("0.325E1"), 3.25);
        assert_eq!(number("34e1"), 340.0);
        assert_eq!(number(".5"), 0.5);
        assert_eq!(number("5."), 5.0);
        assert_eq!(number("1e+2"), 100.0);
        assert_eq!(number("0x1p4"), 16.0); // glibc strtod reads C99 hex floats
        assert_eq!(number("1e400"), f64::INFINITY);
        // `-` is never part of a numeral.
        assert_eq!(toks("-1"), vec![Token::Char(b'-'), Token::Number(1.0), Token::Eof]);
        // A numeral swallows a following `..` only through its digits-and-dots loop.
        assert_eq!(toks("1 ..2"), vec![Token::Number(1.0), Token::Concat, Token::Number(2.0), Token::Eof]);
    }

    #[test]
    fn malformed_numbers() {
        assert_eq!(err(b"3x"), "t:1: malformed number near '3x'");
        assert_eq!(err(b"1e"), "t:1: malformed number near '1e'");
        assert_eq!(err(b"1e+"), "t:1: malformed number near '1e+'");
        assert_eq!(err(b"0x"), "t:1: malformed number near '0x'");
        assert_eq!(err(b"1..2"), "t:1: malformed number near '1..2'");
        assert_eq!(err(b"1_000"), "t:1: malformed number near '1_000'");
        assert_eq!(err(b"0x1p-4"), "t:1: malformed number near '0x1p'");
        assert_eq!(err(b"\n\n08x"), "t:3: malformed number near '08x'");
    }

    #[test]
    fn nul_bytes_follow_strchr() {
        // lua5.1's check_next uses strchr, which matches a NUL byte.
        assert_eq!(toks("1\0"), vec![Token::Number(1.0), Token::Eof]);
        assert_eq!(toks(".\0"), vec![Token::Concat, Token::Eof]);
        assert_eq!(toks("..\0"), vec![Token::Dots, Token::Eof]);
        assert_eq!(one(b"\0"), Token::Char(0));
    }

    #[test]
    fn short_strings() {
        assert_eq!(string(b"'abc'"), b"abc");
        assert_eq!(string(b"\"abc\""), b"abc");
        assert_eq!(string(b"'a\"b'"), b"a\"b");
        assert_eq!(string(b"\"a'b\""), b"a'b");
        assert_eq!(string(b"''"), b"");
        assert_eq!(string(br#""\a\b\f\n\r\t\v\\\"\'""#), b"\x07\x08\x0c\n\r\t\x0b\\\"'");
        // Decimal escapes take up to three digits.
        assert_eq!(string(br#""\65\066\0677""#), b"AB\x437");
        assert_eq!(string(br#""\0\00\000\0000""#), b"\0\0\0\x000");
        assert_eq!(string(br#""\255""#), b"\xff");
        // Any other escaped character stands for itself.
        assert_eq!(string(br#""\q\?\z\[""#), b"q?z[");
        // A backslash-newline is a newline; every newline style counts once.
        assert_eq!(string(b"'a\\\nb'"), b"a\nb");
        assert_eq!(string(b"'a\\\r\nb'"), b"a\nb");
        assert_eq!(string(b"'a\\\n\rb'"), b"a\nb");
        // Bytes are kept as they are, including NUL and non-UTF-8.
        assert_eq!(string(b"'\0\xff'"), b"\0\xff");
    }

    #[test]
    fn short_string_errors() {
        assert_eq!(err(b"'abc"), "t:1: unfinished string near '<eof>'");
        assert_eq!(err(b"\"abc\ndef\""), "t:1: unfinished string near '\"abc'");
        assert_eq!(err(b"'abc\rdef'"), "t:1: unfinished string near ''abc'");
        assert_eq!(err(b"'a\\"), "t:1: unfinished string near '<eof>'");
        assert_eq!(err(b"'a\\\n"), "t:2: unfinished string near '<eof>'");
        // The escaped "\r" ends one line, the second "\r" is a raw newline.
        assert_eq!(err(b"'a\\\r\rb'"), "t:2: unfinished string near ''a\n'");
        assert_eq!(err(b"'a\\300'"), "t:1: escape sequence too large near ''a'");
        assert_eq!(err(b"'a\\256"), "t:1: escape sequence too large near ''a'");
        // The token text is decoded and cut at NUL, like lua5.1's buffer.
        assert_eq!(err(b"'a\\tb\\0c\\999'"), "t:1: escape sequence too large near ''a\tb'");
    }

    #[test]
    fn long_strings() {
        assert_eq!(string(b"[[abc]]"), b"abc");
        assert_eq!(string(b"[[]]"), b"");
        assert_eq!(string(b"[==[a]]b]=]c]==]"), b"a]]b]=]c");
        assert_eq!(string(b"[=[a[[b]]c]=]"), b"a[[b]]c");
        // The first newline is skipped, others are normalised to "\n".
        assert_eq!(string(b"[[\nabc\n]]"), b"abc\n");
        assert_eq!(string(b"[[\r\nabc]]"), b"abc");
        assert_eq!(string(b"[[\n\nabc]]"), b"\nabc");
        assert_eq!(string(b"[[a\r\nb\n\rc\r\rd]]"), b"a\nb\nc\n\nd");
        // No escapes in long strings.
        assert_eq!(string(b"[[\\n]]"), b"\\n");
        // `[=` not followed by `[` is an error, `[` alone a token.
        assert_eq!(toks("[ ["), vec![Token::Char(b'['), Token::Char(b'['), Token::Eof]);
        assert_eq!(err(b"[="), "t:1: invalid long string delimiter near '[='");
    }

    #[test]
    fn long_bracket_errors() {
        assert_eq!(err(b"[=a"), "t:1: invalid long string delimiter near '[='");
        assert_eq!(err(b"[=="), "t:1: invalid long string delimiter near '[=='");
        assert_eq!(err(b"[[abc"), "t:1: unfinished long string near '<eof>'");
        assert_eq!(err(b"[==[abc]=]\n"), "t:2: unfinished long string near '<eof>'");
        assert_eq!(err(b"[[ a [[ b ]] ]]"), "t:1: nesting of [[...]] is deprecated near '['");
        assert_eq!(err(b"--[[ a\n[[ b ]] ]]"), "t:2: nesting of [[...]] is deprecated near '['");
        assert_eq!(err(b"--[[abc"), "t:1: unfinished long comment near '<eof>'");
        assert_eq!(err(b"--[==[abc\n\n"), "t:3: unfinished long comment near '<eof>'");
    }

    #[test]
    fn comments() {
        assert_eq!(toks("-- comment\nx"), vec![Token::Name("x".into()), Token::Eof]);
        assert_eq!(toks("--[[ long\ncomment ]] x"), vec![Token::Name("x".into()), Token::Eof]);
        assert_eq!(toks("--[==[ ]] ]==] x"), vec![Token::Name("x".into()), Token::Eof]);
        // `--[` without a long bracket is a line comment.
        assert_eq!(toks("--[ x\ny"), vec![Token::Name("y".into()), Token::Eof]);
        assert_eq!(toks("--[= x\ny"), vec![Token::Name("y".into()), Token::Eof]);
        assert_eq!(toks("x --"), vec![Token::Name("x".into()), Token::Eof]);
        assert_eq!(toks("a - -b"), vec![Token::Name("a".into()), Token::Char(b'-'), Token::Char(b'-'), Token::Name("b".into()), Token::Eof]);
    }

    #[test]
    fn lines() {
        let lines = |src: &[u8]| -> Vec<u32> { tokenize(src, "t").unwrap().into_iter().map(|t| t.line).collect() };
        assert_eq!(lines(b"a\nb\r\nc\n\rd\r\re\n\nf"), vec![1, 2, 3, 4, 6, 8, 8]);
        // A token's line is the line where it ends.
        assert_eq!(lines(b"a [[x\ny\nz]] b"), vec![1, 3, 3, 3]);
        assert_eq!(lines(b"--[[\n\n]] a"), vec![3, 3]);
        assert_eq!(lines(b"'a\\\nb' c"), vec![2, 2, 2]);
        assert_eq!(lines(b"\x0b\x0c\t a"), vec![1, 1]);
    }

    #[test]
    fn token_symbols() {
        assert_eq!(Token::Eof.symbol(), b"<eof>");
        assert_eq!(Token::Name("x".into()).symbol(), b"<name>");
        assert_eq!(Token::String("x".into()).symbol(), b"<string>");
        assert_eq!(Token::Number(1.0).symbol(), b"<number>");
        assert_eq!(Token::Function.symbol(), b"function");
        assert_eq!(Token::Ne.symbol(), b"~=");
        assert_eq!(Token::Char(b'=').symbol(), b"=");
        assert_eq!(Token::Char(1).symbol(), b"char(1)");
        assert_eq!(Token::Char(127).symbol(), b"char(127)");
        assert_eq!(Token::Char(200).symbol(), b"\xc8");
    }
}
