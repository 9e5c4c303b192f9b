//! Parses Lua 5.1 files and prints their AST dump, or the syntax error
//! exactly as `lua5.1 FILE` would report it.
//!
//! Usage: `cargo run -p lua51-syntax --example lua51-parse -- FILE...`

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let source = match std::fs::read(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                status = ExitCode::FAILURE;
                continue;
            }
        };
        match lua51_syntax::parse_chunk(&source, &path) {
            Ok(chunk) => println!("{chunk}"),
            Err(e) => {
                let mut line = e.to_bytes();
                line.push(b'\n');
                let _ = std::io::stderr().write_all(&line);
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
