//! The `io` library and file methods, over userdata holding a [`LuaFile`].
//!
//! Reads are buffered here (so `*l`, `*n` and counts can look ahead); writes to a file go
//! straight to it after any pending read buffer is discarded by a seek, like C's `FILE`
//! requires between reads and writes. Standard output shares `print`'s buffer, so the two
//! interleave in program order.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use lua51_value::number::{format_number, str_to_number};
use lua51_value::{ObjKind, TValue};

use crate::native::{native, new_library, os_error_text, register, Call, NResult, Native, Raised};
use crate::object::heap::OutOfMemory;
use crate::object::string::string_bytes;
use crate::object::table::{table_mut, Table};
use crate::object::userdata::{userdata_mut, Userdata};
use crate::state::{Event, LuaState};

/// Where a Lua file handle reads and writes.
#[derive(Debug)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
    File(File),
    /// `io.popen(cmd, "r")`: the command's standard output.
    PipeFrom(std::process::Child),
    /// `io.popen(cmd, "w")`: the command's standard input.
    PipeTo(std::process::Child),
}

impl Stream {
    /// Closes the stream; for a pipe, waits for the command (like `pclose`).
    fn close(self) -> std::io::Result<()> {
        match self {
            Stream::PipeFrom(mut child) | Stream::PipeTo(mut child) => {
                drop(child.stdin.take());
                drop(child.stdout.take());
                child.wait().map(|_| ())
            }
            _ => Ok(()),
        }
    }
}

/// How writes to a file are buffered (C's `setvbuf` modes), with the buffer's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Buffering {
    No,
    Full(usize),
    Line(usize),
}

/// glibc's buffer for a regular file: the file system's block size, 4096 bytes almost always.
const DEFAULT_FILE_BUFFER: usize = 4096;

/// The payload of a file handle.
#[derive(Debug)]
pub struct LuaFile {
    stream: Option<Stream>,
    /// Read-ahead: `rbuf[rpos..]` is unread input.
    rbuf: Vec<u8>,
    rpos: usize,
    /// Output not yet written to a disk file, as C's stdio keeps it: another handle on the
    /// same file does not see it before a flush, a seek, a read, a close or the exit.
    wbuf: Vec<u8>,
    buffering: Buffering,
    /// Whether the file was opened for writing: C's stdio refuses a write to a read-only
    /// stream at once (EBADF), before anything reaches the buffer.
    writable: bool,
}

/// Whether the descriptor of `f` was opened for writing (its `O_ACCMODE` is not `O_RDONLY`).
fn opened_for_writing(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    extern "C" {
        fn fcntl(fd: std::ffi::c_int, cmd: std::ffi::c_int, ...) -> std::ffi::c_int;
    }
    const F_GETFL: std::ffi::c_int = 3;
    const O_ACCMODE: std::ffi::c_int = 3;
    const O_RDONLY: std::ffi::c_int = 0;
    let flags = unsafe { fcntl(f.as_raw_fd(), F_GETFL) };
    flags < 0 || flags & O_ACCMODE != O_RDONLY
}

/// A file the program forgot to close is closed when it is collected (5.1's `__gc` on files):
/// for a pipe that means waiting for the command, as `pclose` does.
impl Drop for LuaFile {
    fn drop(&mut self) {
        let _ = self.flush_writes();
        if let Some(stream) = self.stream.take() {
            let _ = stream.close();
        }
    }
}

impl LuaFile {
    /// Closes the file (for a pipe, waits for the command); `None` for the standard files,
    /// which stay open.
    fn close(&mut self) -> Option<std::io::Result<()>> {
        if matches!(self.stream, Some(Stream::Stdin | Stream::Stdout | Stream::Stderr)) {
            return None;
        }
        let flushed = self.flush_writes();
        let closed = self.stream.take().map_or(Ok(()), Stream::close);
        Some(flushed.and(closed))
    }

    fn new(stream: Stream) -> Self {
        let writable = match &stream {
            Stream::File(f) => opened_for_writing(f),
            _ => true,
        };
        LuaFile { stream: Some(stream), rbuf: Vec::new(), rpos: 0, wbuf: Vec::new(), buffering: Buffering::Full(DEFAULT_FILE_BUFFER), writable }
    }

    /// Writes out buffered output (`fflush`).
    fn flush_writes(&mut self) -> std::io::Result<()> {
        if self.wbuf.is_empty() {
            return Ok(());
        }
        let out = std::mem::take(&mut self.wbuf);
        match self.stream.as_mut() {
            Some(Stream::File(f)) => f.write_all(&out),
            _ => Ok(()),
        }
    }

    /// Writes `piece` to a disk file through the buffer, flushing as the buffering mode says
    /// (full: when the buffer is full; line: also at a newline; no: at once).
    fn write_file(&mut self, piece: &[u8]) -> std::io::Result<()> {
        if !self.writable {
            return Err(std::io::Error::from_raw_os_error(9));
        }
        if piece.len() >= DEFAULT_FILE_BUFFER {
            // Larger than a buffer: written through, after what is buffered, not copied.
            self.flush_writes()?;
            return match self.stream.as_mut() {
                Some(Stream::File(f)) => f.write_all(piece),
                _ => Ok(()),
            };
        }
        self.wbuf.extend_from_slice(piece);
        let due = match self.buffering {
            Buffering::No => true,
            Buffering::Full(size) => self.wbuf.len() >= size,
            Buffering::Line(size) => self.wbuf.len() >= size || piece.contains(&b'\n'),
        };
        if due {
            self.flush_writes()?;
        }
        Ok(())
    }

    /// Refills the read buffer; false at end of input. Pending output is written first, as
    /// stdio does when a stream turns from writing to reading.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.rpos < self.rbuf.len() {
            return Ok(true);
        }
        self.flush_writes()?;
        self.rbuf.resize(8192, 0);
        self.rpos = 0;
        let n = match self.stream.as_mut() {
            Some(Stream::Stdin) => std::io::stdin().read(&mut self.rbuf),
            Some(Stream::File(f)) => f.read(&mut self.rbuf),
            Some(Stream::PipeFrom(child)) => child.stdout.as_mut().map_or(Ok(0), |out| out.read(&mut self.rbuf)),
            _ => Ok(0),
        };
        // A failed read (a file open only for writing) buffers nothing: the next write would
        // otherwise take the whole buffer for read-ahead to seek back over.
        self.rbuf.truncate(*n.as_ref().unwrap_or(&0));
        let n = n?;
        Ok(n > 0)
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(if self.fill()? { Some(self.rbuf[self.rpos]) } else { None })
    }

    /// `*l` as 5.1 reads it: fgets, then strlen. A NUL ends what the line contributes; the rest
    /// of that line is lost and the next line is appended (fgets' newline was never seen).
    fn read_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let Some(mut line) = self.read_raw_line()? else { return Ok(None) };
        while let Some(nul) = line.iter().position(|&b| b == 0) {
            line.truncate(nul);
            match self.read_raw_line()? {
                Some(next) => try_extend(&mut line, &next)?,
                None => break,
            }
        }
        Ok(Some(line))
    }

    fn read_raw_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let mut any = false;
        while self.fill()? {
            any = true;
            let avail = &self.rbuf[self.rpos..];
            if let Some(i) = avail.iter().position(|&b| b == b'\n') {
                try_extend(&mut line, &avail[..i])?;
                self.rpos += i + 1;
                return Ok(Some(line));
            }
            try_extend(&mut line, avail)?;
            self.rpos = self.rbuf.len();
        }
        Ok(any.then_some(line))
    }

    fn read_all(&mut self) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        while self.fill()? {
            try_extend(&mut out, &self.rbuf[self.rpos..])?;
            self.rpos = self.rbuf.len();
        }
        Ok(out)
    }

    fn read_count(&mut self, n: usize) -> std::io::Result<Option<Vec<u8>>> {
        if n == 0 {
            // `read(0)` tests for end of file.
            return Ok(self.fill()?.then(Vec::new));
        }
        let mut out = Vec::new();
        while out.len() < n && self.fill()? {
            let take = (n - out.len()).min(self.rbuf.len() - self.rpos);
            try_extend(&mut out, &self.rbuf[self.rpos..self.rpos + take])?;
            self.rpos += take;
        }
        Ok((!out.is_empty() || n == 0).then_some(out))
    }

    /// `*n`: what `fscanf("%lf")` does. Skips whitespace, then takes the longest run of
    /// characters that can still begin a number (sign, digits, one point, an exponent with its
    /// sign, `0x` hex, `inf`/`infinity`/`nan`), stopping at the first that cannot, which stays
    /// unread; the number is what `strtod` makes of the run ("1e" is 1), and a run it cannot
    /// convert fails the read.
    fn read_number(&mut self) -> std::io::Result<Option<f64>> {
        while let Some(b) = self.peek()? {
            if !b.is_ascii_whitespace() {
                break;
            }
            self.rpos += 1;
        }
        let mut text = Vec::new();
        let take = |this: &mut Self, text: &mut Vec<u8>, ok: &dyn Fn(u8) -> bool| -> std::io::Result<bool> {
            match this.peek()? {
                Some(b) if ok(b) => {
                    text.push(b);
                    this.rpos += 1;
                    Ok(true)
                }
                _ => Ok(false),
            }
        };
        take(self, &mut text, &|b| b == b'+' || b == b'-')?;
        // inf, infinity, nan: as many letters of the word as match.
        if let Some(first) = self.peek()?.map(|b| b.to_ascii_lowercase()) {
            if first == b'i' || first == b'n' {
                let word: &[u8] = if first == b'i' { b"infinity" } else { b"nan" };
                for &w in word {
                    if !take(self, &mut text, &|b| b.to_ascii_lowercase() == w)? {
                        break;
                    }
                }
                return Ok(prefix_number(&text));
            }
        }
        let mut hex = false;
        if take(self, &mut text, &|b| b == b'0')? && take(self, &mut text, &|b| b == b'x' || b == b'X')? {
            hex = true;
        }
        let digit = move |b: u8| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() };
        while take(self, &mut text, &digit)? {}
        if take(self, &mut text, &|b| b == b'.')? {
            while take(self, &mut text, &digit)? {}
        }
        let exponent = move |b: u8| if hex { b == b'p' || b == b'P' } else { b == b'e' || b == b'E' };
        if text.iter().any(|b| b.is_ascii_digit()) && take(self, &mut text, &exponent)? {
            take(self, &mut text, &|b| b == b'+' || b == b'-')?;
            while take(self, &mut text, &|b: u8| b.is_ascii_digit())? {}
        }
        // strtod converts the longest valid prefix ("1e" is 1, "0x" is 0).
        Ok(prefix_number(&text))
    }

    /// Drops read-ahead (before a write or a seek) by moving the OS position back.
    fn discard_read_ahead(&mut self) -> std::io::Result<()> {
        let unread = (self.rbuf.len() - self.rpos) as i64;
        if unread > 0 {
            if let Some(Stream::File(f)) = self.stream.as_mut() {
                f.seek(SeekFrom::Current(-unread))?;
            }
        }
        self.rbuf.clear();
        self.rpos = 0;
        Ok(())
    }
}

/// The number `strtod` reads at the start of `text`, if any.
fn prefix_number(text: &[u8]) -> Option<f64> {
    (1..=text.len()).rev().find_map(|n| str_to_number(&text[..n]))
}

fn file_of<'a>(c: &mut Call, i: usize) -> Result<&'a mut LuaFile, Raised> {
    let v = c.arg(i);
    if v.is_kind(ObjKind::Userdata) {
        if let Some(f) = userdata_mut(v).payload.downcast_mut::<LuaFile>() {
            return Ok(unsafe { &mut *(f as *mut LuaFile) });
        }
    }
    Err(c.type_error(i, "FILE*"))
}

fn open_file_of<'a>(c: &mut Call, i: usize) -> Result<&'a mut LuaFile, Raised> {
    let f = file_of(c, i)?;
    if f.stream.is_none() {
        return Err(c.error("attempt to use a closed file"));
    }
    Ok(f)
}

/// `nil, "name: message", errno`, lua5.1's `pushresult` for a failure.
fn fail(c: &mut Call, e: &std::io::Error, name: Option<&[u8]>) -> NResult {
    let mut text = Vec::new();
    if let Some(n) = name {
        text.extend_from_slice(n);
        text.extend_from_slice(b": ");
    }
    text.extend_from_slice(os_error_text(e).as_bytes());
    let m = c.string(&text)?;
    c.set(0, TValue::NIL);
    c.set(1, m);
    c.set(2, TValue::from_f64(f64::from(e.raw_os_error().unwrap_or(0))));
    Ok(3)
}

fn new_file(st: &mut LuaState, file: LuaFile) -> Result<TValue, OutOfMemory> {
    // A userdata's environment is its creator's: the globals here (liolib's is a private
    // table holding __close).
    let mt = st.file_metatable;
    let env = st.globals;
    Userdata::new_in(&mut st.heap, Box::new(file), mt, env)
}

fn write_to(c: &mut Call, f: &mut LuaFile, first_arg: usize) -> Result<(), std::io::Error> {
    f.discard_read_ahead()?;
    for i in first_arg..c.nargs {
        let v = c.arg(i);
        // A string is written from where it lies, never copied (it can be most of the memory
        // there is).
        let mut number = Vec::new();
        let piece: &[u8] = if v.is_double() {
            format_number(v.as_f64(), &mut number);
            &number
        } else if v.is_string() {
            string_bytes(v)
        } else {
            let _ = c.type_error(i, "string");
            return Err(std::io::Error::other("bad argument"));
        };
        match f.stream.as_mut() {
            Some(Stream::Stdout) => c.st.stdout.write_all(piece)?,
            Some(Stream::Stderr) => {
                c.st.flush();
                std::io::stderr().write_all(piece)?
            }
            Some(Stream::File(_)) => f.write_file(piece)?,
            Some(Stream::PipeTo(child)) => {
                if let Some(input) = child.stdin.as_mut() {
                    input.write_all(piece)?
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn do_write(c: &mut Call, f: &mut LuaFile, first_arg: usize) -> NResult {
    match write_to(c, f, first_arg) {
        Ok(()) => {
            // 5.1 returns true (5.2 returns the file).
            c.set(0, TValue::TRUE);
            Ok(1)
        }
        Err(e) if e.kind() == std::io::ErrorKind::Other && e.to_string() == "bad argument" => Err(Raised),
        Err(e) => fail(c, &e, None),
    }
}

/// Appends `bytes` to a read's result, or fails with `OutOfMemory` (which `do_read` raises as
/// 5.1's "not enough memory"): a line or a whole file can be larger than the memory left.
fn try_extend(out: &mut Vec<u8>, bytes: &[u8]) -> std::io::Result<()> {
    out.try_reserve(bytes.len()).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    out.extend_from_slice(bytes);
    Ok(())
}

/// Reads with the formats from argument `first`; results from slot 0.
fn do_read(c: &mut Call, f: &mut LuaFile, first: usize) -> NResult {
    // No format reads a line; an explicit nil is an invalid option, as in 5.1's g_read.
    let defaulted = c.nargs <= first;
    let formats: Vec<TValue> = if defaulted { vec![TValue::NIL] } else { (first..c.nargs).map(|i| c.arg(i)).collect() };
    let mut results = Vec::new();
    for (k, fmt) in formats.iter().enumerate() {
        let value = if defaulted {
            f.read_line().map(|l| l.map(Ok))
        } else if fmt.is_double() {
            f.read_count(fmt.as_f64().max(0.0) as usize).map(|b| b.map(Ok))
        } else if fmt.is_string() && string_bytes(*fmt).first() == Some(&b'*') {
            match string_bytes(*fmt).get(1) {
                Some(b'n') => f.read_number().map(|n| n.map(Err)),
                Some(b'l') => f.read_line().map(|l| l.map(Ok)),
                Some(b'a') => f.read_all().map(|a| Some(Ok(a))),
                _ => return Err(c.arg_error(first + k, "invalid format")),
            }
        } else {
            return Err(c.arg_error(first + k, "invalid option"));
        };
        match value {
            Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => return Err(c.raise_oom()),
            Err(e) => return fail(c, &e, None),
            Ok(None) => {
                results.push(TValue::NIL);
                break;
            }
            Ok(Some(Ok(bytes))) => results.push(c.string(&bytes)?),
            Ok(Some(Err(n))) => results.push(TValue::from_f64(n)),
        }
    }
    c.return_values(0, &results)
}

native!(FILE_WRITE, "write", |c| {
    let f = open_file_of(c, 0)?;
    do_write(c, f, 1)
});

native!(FILE_READ, "read", |c| {
    let f = open_file_of(c, 0)?;
    do_read(c, f, 1)
});

native!(FILE_CLOSE, "close", |c| { close_file(c) });

native!(FILE_FLUSH, "flush", |c| {
    let f = open_file_of(c, 0)?;
    flush_file(c, f)
});

/// `file:flush()` / `io.flush()`: standard output shares `print`'s buffer.
fn flush_file(c: &mut Call, f: &mut LuaFile) -> NResult {
    match f.stream.as_mut() {
        Some(Stream::Stdout) => c.st.flush(),
        Some(Stream::File(_)) => {
            if let Err(e) = f.flush_writes() {
                return fail(c, &e, None);
            }
        }
        _ => {}
    }
    c.set(0, TValue::TRUE);
    Ok(1)
}

native!(FILE_SEEK, "seek", |c| {
    let f = open_file_of(c, 0)?;
    let whence = if c.arg(1).is_nil() { Cow::Borrowed(&b"cur"[..]) } else { c.check_bytes(1)? };
    let offset = c.opt_integer(2, 0)?;
    let pos = match &whence[..] {
        // fseek refuses a negative position with EINVAL.
        b"set" if offset < 0 => return fail(c, &std::io::Error::from_raw_os_error(22), None),
        b"set" => SeekFrom::Start(offset as u64),
        b"cur" => SeekFrom::Current(offset),
        b"end" => SeekFrom::End(offset),
        _ => return Err(c.arg_error(1, &format!("invalid option '{}'", String::from_utf8_lossy(&whence)))),
    };
    if let Err(e) = f.discard_read_ahead().and_then(|()| f.flush_writes()) {
        return fail(c, &e, None);
    }
    let r = match f.stream.as_mut() {
        Some(Stream::File(file)) => file.seek(pos),
        _ => Err(std::io::Error::from_raw_os_error(29)),
    };
    match r {
        Ok(p) => {
            c.set(0, TValue::from_f64(p as f64));
            Ok(1)
        }
        Err(e) => fail(c, &e, None),
    }
});

native!(FILE_SETVBUF, "setvbuf", |c| {
    let f = open_file_of(c, 0)?;
    let mode = c.check_bytes(1)?;
    // 5.1's default size is LUAL_BUFFERSIZE (BUFSIZ).
    let size = c.opt_integer(2, 8192)?.max(1) as usize;
    let buffering = match &mode[..] {
        b"no" => Buffering::No,
        b"full" => Buffering::Full(size),
        b"line" => Buffering::Line(size),
        _ => return Err(c.arg_error(1, &format!("invalid option '{}'", String::from_utf8_lossy(&mode)))),
    };
    // setvbuf on a stream with pending output: write it out under the old mode first.
    if let Err(e) = f.flush_writes() {
        return fail(c, &e, None);
    }
    f.buffering = buffering;
    c.set(0, TValue::TRUE);
    Ok(1)
});

native!(FILE_GC, "__gc", |c| {
    // 5.1's io_gc, the handle's finalizer: closes the file unless it is a standard one. (A
    // handle freed without it, its `__gc` removed, is still closed when its payload drops.)
    let f = file_of(c, 0)?;
    let _ = f.close();
    Ok(0)
});

native!(FILE_LINES_ITER, "lines", |c| {
    let me = TValue(unsafe { *c.base.offset(deegen_api::frame::CALLEE as isize) });
    let (file, close_at_eof) = unsafe {
        let cl = me.as_closure();
        (TValue((*(*cl).upvalue(0)).closed), TValue((*(*cl).upvalue(1)).closed) == TValue::TRUE)
    };
    c.set(0, file);
    c.nargs = 1;
    let f = file_of(c, 0)?;
    if f.stream.is_none() {
        return Err(c.error("file is already closed"));
    }
    match f.read_line() {
        Ok(Some(line)) => {
            let s = c.string(&line)?;
            c.set(0, s);
            Ok(1)
        }
        // At the end 5.1's io_readline returns nothing, closing the file it opened.
        Ok(None) => {
            if close_at_eof {
                f.stream = None;
            }
            Ok(0)
        }
        Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => Err(c.raise_oom()),
        Err(e) => Err(c.error(&os_error_text(&e))),
    }
});

fn lines_iterator(c: &mut Call, file: TValue, close_at_eof: bool) -> NResult {
    let it = FILE_LINES_ITER.closure(c.st, &[file, TValue::from_bool(close_at_eof)]);
    match it {
        Ok(it) => {
            c.set(0, it);
            Ok(1)
        }
        Err(OutOfMemory) => Err(c.raise_oom()),
    }
}

native!(FILE_LINES, "lines", |c| {
    open_file_of(c, 0)?;
    let me = c.arg(0);
    lines_iterator(c, me, false)
});

native!(FILE_TOSTRING, "tostring", |c| {
    let f = file_of(c, 0)?;
    let text = if f.stream.is_none() { "file (closed)".to_owned() } else { format!("file ({:p})", c.arg(0).as_ptr::<u8>()) };
    let s = c.string(text.as_bytes())?;
    c.set(0, s);
    Ok(1)
});

/// 5.1.5 hands the mode to fopen: glibc looks at the first character (r, w or a, else EINVAL)
/// and a '+' among the rest; other letters ('b', 't', ...) change nothing here.
fn open_mode(mode: &[u8]) -> Option<std::fs::OpenOptions> {
    let mut o = std::fs::OpenOptions::new();
    let plus = mode.get(1..).is_some_and(|r| r.contains(&b'+'));
    match mode.first() {
        Some(b'r') => o.read(true).write(plus),
        Some(b'w') => o.write(true).create(true).truncate(true).read(plus),
        Some(b'a') => o.append(true).create(true).read(plus),
        _ => return None,
    };
    Some(o)
}

native!(OPEN, "open", |c| {
    let name = c.check_bytes(0)?;
    let mode = if c.arg(1).is_nil() { Cow::Borrowed(&b"r"[..]) } else { c.check_bytes(1)? };
    let Some(options) = open_mode(&mode) else {
        return fail(c, &std::io::Error::from_raw_os_error(22), Some(&name));
    };
    match options.open(String::from_utf8_lossy(&name).as_ref()) {
        Ok(file) => match new_file(c.st, LuaFile::new(Stream::File(file))) {
            Ok(v) => {
                c.set(0, v);
                Ok(1)
            }
            Err(OutOfMemory) => Err(c.raise_oom()),
        },
        Err(e) => fail(c, &e, Some(&name)),
    }
});

/// The default input or output file for `io.read`/`io.write`/`io.flush`, which must be open
/// (lua5.1's `getiofile`).
fn default_open_file<'a>(c: &mut Call, output: bool) -> Result<&'a mut LuaFile, Raised> {
    let v = if output { c.st.default_output } else { c.st.default_input };
    let f = userdata_mut(v).payload.downcast_mut::<LuaFile>().expect("default files are files") as *mut LuaFile;
    let f = unsafe { &mut *f };
    if f.stream.is_none() {
        return Err(c.error(if output { "standard output file is closed" } else { "standard input file is closed" }));
    }
    Ok(f)
}

native!(WRITE, "write", |c| {
    let f = default_open_file(c, true)?;
    do_write(c, f, 0)
});

native!(READ, "read", |c| {
    let f = default_open_file(c, false)?;
    do_read(c, f, 0)
});

native!(LINES, "lines", |c| {
    if c.arg(0).is_nil() {
        // lua5.1 checks the default input like a file argument (`tofile`).
        let input = c.st.default_input;
        c.set(0, input);
        c.nargs = c.nargs.max(1);
        open_file_of(c, 0)?;
        return lines_iterator(c, input, false);
    }
    let name = c.check_bytes(0)?;
    match std::fs::File::open(String::from_utf8_lossy(&name).as_ref()) {
        Ok(file) => {
            let v = new_file(c.st, LuaFile::new(Stream::File(file))).map_err(|_| c.raise_oom())?;
            lines_iterator(c, v, true)
        }
        Err(e) => {
            let msg = format!("{}: {}", String::from_utf8_lossy(&name), os_error_text(&e));
            Err(c.arg_error(0, &msg))
        }
    }
});

native!(FLUSH, "flush", |c| {
    let f = default_open_file(c, true)?;
    flush_file(c, f)
});

native!(CLOSE, "close", |c| {
    if c.arg(0).is_nil() {
        let out = c.st.default_output;
        c.set(0, out);
        c.nargs = 1;
    }
    close_file(c)
});

/// Closes the file in argument 1; the standard files refuse, as in lua5.1.
fn close_file(c: &mut Call) -> NResult {
    let f = open_file_of(c, 0)?;
    match f.close() {
        None => {
            c.set(0, TValue::NIL);
            let m = c.string(b"cannot close standard file")?;
            c.set(1, m);
            Ok(2)
        }
        Some(Err(e)) => fail(c, &e, None),
        Some(Ok(())) => {
            c.set(0, TValue::TRUE);
            Ok(1)
        }
    }
}

native!(TMPFILE, "tmpfile", |c| {
    // C's tmpfile(): a new file opened "w+b", removed from the file system at once, so it
    // disappears when closed.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir();
    let mut attempt = 0u32;
    let file = loop {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = dir.join(format!("ljr-tmp-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&name) {
            Ok(f) => {
                let _ = std::fs::remove_file(&name);
                break f;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1000 => attempt += 1,
            Err(e) => return fail(c, &e, None),
        }
    };
    let v = new_file(c.st, LuaFile::new(Stream::File(file))).map_err(|_| c.raise_oom())?;
    c.set(0, v);
    Ok(1)
});

native!(POPEN, "popen", |c| {
    let command = c.check_bytes(0)?;
    let mode = if c.arg(1).is_nil() { Cow::Borrowed(&b"r"[..]) } else { c.check_bytes(1)? };
    let reading = match &mode[..] {
        b"r" => true,
        b"w" => false,
        // 5.1 passes the mode to popen(3), which refuses anything else with EINVAL.
        _ => return fail(c, &std::io::Error::from_raw_os_error(22), Some(&command)),
    };
    // popen(3) runs the command through /bin/sh -c; output written so far must come first.
    c.st.flush();
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg("-c").arg(String::from_utf8_lossy(&command).as_ref());
    if reading {
        cmd.stdout(std::process::Stdio::piped());
    } else {
        cmd.stdin(std::process::Stdio::piped());
    }
    match cmd.spawn() {
        Ok(child) => {
            let stream = if reading { Stream::PipeFrom(child) } else { Stream::PipeTo(child) };
            let v = new_file(c.st, LuaFile::new(stream)).map_err(|_| c.raise_oom())?;
            c.set(0, v);
            Ok(1)
        }
        Err(e) => fail(c, &e, Some(&command)),
    }
});

native!(TYPE, "type", |c| {
    c.check_any(0)?;
    let v = c.arg(0);
    let r = if v.is_kind(ObjKind::Userdata) {
        match userdata_mut(v).payload.downcast_ref::<LuaFile>() {
            Some(f) if f.stream.is_some() => c.string(b"file")?,
            Some(_) => c.string(b"closed file")?,
            None => TValue::NIL,
        }
    } else {
        TValue::NIL
    };
    c.set(0, r);
    Ok(1)
});

/// `io.input`/`io.output`: set from a file or a file name, and return the current one.
fn default_file(c: &mut Call, output: bool) -> NResult {
    let v = c.arg(0);
    if !v.is_nil() {
        let new = if v.is_string() {
            let name = string_bytes(v).to_vec();
            let options = if output { open_mode(b"w") } else { open_mode(b"r") }.expect("valid mode");
            match options.open(String::from_utf8_lossy(&name).as_ref()) {
                Ok(file) => new_file(c.st, LuaFile::new(Stream::File(file))).map_err(|_| c.raise_oom())?,
                Err(e) => {
                    let msg = format!("{}: {}", String::from_utf8_lossy(&name), os_error_text(&e));
                    return Err(c.arg_error(0, &msg));
                }
            }
        } else {
            file_of(c, 0)?;
            v
        };
        if output {
            c.st.default_output = new;
        } else {
            c.st.default_input = new;
        }
    }
    let current = if output { c.st.default_output } else { c.st.default_input };
    c.set(0, current);
    Ok(1)
}

native!(INPUT, "input", |c| { default_file(c, false) });
native!(OUTPUT, "output", |c| { default_file(c, true) });

/// The methods of file handles, by their Lua names (5.1's `flib`).
pub(crate) const METHODS: &[Native] = &[FILE_WRITE, FILE_READ, FILE_CLOSE, FILE_FLUSH, FILE_SEEK, FILE_LINES, FILE_SETVBUF];

/// The io library's functions, by their Lua names (5.1's `iolib`).
pub(crate) const FUNCTIONS: &[Native] = &[OPEN, WRITE, READ, LINES, CLOSE, TYPE, INPUT, OUTPUT, TMPFILE, FLUSH, POPEN];

/// Opens the io library (the global `io`, with `stdin`, `stdout` and `stderr`) and the file
/// handles' metatable (the registry's `FILE*`), and returns the library. Files left open are
/// flushed when the state is dropped.
pub fn open(st: &mut LuaState) -> Result<TValue, OutOfMemory> {
    // As liolib's `createmeta`: the methods live in the file handles' metatable, whose
    // `__index` is itself (`getmetatable(io.stdin).read` is the method).
    let mt = Table::new_in(&mut st.heap)?;
    for f in METHODS {
        register(st, mt, f)?;
    }
    let index = st.event_names[Event::Index as usize];
    table_mut(mt).set(index, mt).expect("string keys are valid");
    let tostring = FILE_TOSTRING.function(st)?;
    let ts = st.event_names[Event::ToString as usize];
    table_mut(mt).set(ts, tostring).expect("string keys are valid");
    let gc = FILE_GC.function(st)?;
    let gc_key = st.intern(b"__gc")?;
    table_mut(mt).set(gc_key, gc).expect("string keys are valid");
    st.file_metatable = mt.as_ptr();
    // liolib registers the file handles' metatable as "FILE*".
    let key = st.intern(b"FILE*")?;
    table_mut(st.registry).set(key, mt).expect("string keys are valid");
    let io = new_library(st, "io", FUNCTIONS)?;
    for (name, stream) in [("stdin", Stream::Stdin), ("stdout", Stream::Stdout), ("stderr", Stream::Stderr)] {
        let is_in = matches!(stream, Stream::Stdin);
        let is_out = matches!(stream, Stream::Stdout);
        let f = new_file(st, LuaFile::new(stream))?;
        let key = st.intern(name.as_bytes())?;
        table_mut(io).set(key, f).expect("string keys are valid");
        if is_in {
            st.default_input = f;
        }
        if is_out {
            st.default_output = f;
        }
    }
    st.at_drop.push(flush_all_files);
    Ok(io)
}

/// Writes out what every open file still buffers, as C's `exit` flushes every stream.
pub(crate) fn flush_all_files(st: &mut LuaState) {
    for &h in &st.heap.userdata {
        let u = unsafe { &mut *(h as *mut Userdata) };
        if let Some(f) = u.payload.downcast_mut::<LuaFile>() {
            let _ = f.flush_writes();
        }
    }
}
