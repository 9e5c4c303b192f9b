//! The baseline JIT's compile speed (`lua-bench --compile-speed`): a large generated Lua file
//! of many small functions, each called once under `ljr --tier=baseline --jit-stats` (every
//! function is compiled at its first call), and the JIT's own totals read back from the JSON
//! it prints. The paper's LuaJIT Remake compiles 19.1 million bytecodes per second at 91 bytes
//! of code per bytecode; this harness reports the same two figures.

use std::path::Path;
use std::time::Duration;

use crate::process::{self, Exit, Invocation};

/// Functions in the generated program.
pub const FUNCTIONS: usize = 3000;

/// A Lua program of `functions` functions with the bytecodes typical code has (arithmetic,
/// comparisons and branches, table and field access, a numeric loop, a call, concatenation,
/// length), each called once, printing a checksum.
pub fn generate_program(functions: usize) -> String {
    let mut s = String::from("local F = {}\n");
    for i in 0..functions {
        s.push_str(&format!(
            "F[{i}] = function(a, b, t)\n  local x = a + b * {i}\n  if x > 10 then x = x - 1 else x = x + 2 end\n  t.k{k} = x\n  local s = 0\n  for j = 1, 3 do s = s + t[j] + j end\n  return tostring(x) .. s, t.name, #t\nend\n",
            k = i % 7
        ));
    }
    s.push_str(&format!(
        "local t = {{1, 2, 3, name = 'n'}}\nlocal acc = 0\nfor i = 0, {} do acc = acc + #F[i](i, 2, t) end\nprint(acc)\n",
        functions - 1
    ));
    s
}

/// One run's totals, as `ljr --jit-stats` printed them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompileStats {
    pub functions: u64,
    pub bytecodes: u64,
    pub code_bytes: u64,
    /// The part of `code_bytes` out of line, in the functions' cold areas (0 from an `ljr`
    /// that does not report it).
    pub cold_code_bytes: u64,
    pub compile_seconds: f64,
    /// The part of `compile_seconds` the code cache spent getting fresh pages from the kernel
    /// (0 from an `ljr` that does not report it).
    pub memory_seconds: f64,
}

impl CompileStats {
    pub fn bytecodes_per_second(&self) -> f64 {
        self.bytecodes as f64 / self.compile_seconds.max(1e-9)
    }

    /// The compiler's own speed: bytecodes per second of compile time not spent waiting for
    /// fresh pages (which costs what the machine's memory costs, not what the JIT does).
    pub fn bytecodes_per_second_without_memory(&self) -> f64 {
        self.bytecodes as f64 / (self.compile_seconds - self.memory_seconds).max(1e-9)
    }

    pub fn bytes_per_bytecode(&self) -> f64 {
        self.code_bytes as f64 / self.bytecodes.max(1) as f64
    }

    /// The in-line part of [`Self::bytes_per_bytecode`]: what the fast paths take.
    pub fn in_line_bytes_per_bytecode(&self) -> f64 {
        self.code_bytes.saturating_sub(self.cold_code_bytes) as f64 / self.bytecodes.max(1) as f64
    }
}

/// The number after `"key": ` in `json` (the flat object `--jit-stats` prints).
fn field(json: &str, key: &str) -> Option<f64> {
    let at = json.find(&format!("\"{key}\": "))? + key.len() + 4;
    let rest = &json[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].trim().parse().ok()
}

/// Reads the `--jit-stats` object from `ljr`'s stderr (its last line).
pub fn parse_stats(stderr: &str) -> Option<CompileStats> {
    let line = stderr.lines().rev().find(|l| l.starts_with('{'))?;
    Some(CompileStats {
        functions: field(line, "functions")? as u64,
        bytecodes: field(line, "bytecodes")? as u64,
        code_bytes: field(line, "code_bytes")? as u64,
        cold_code_bytes: field(line, "cold_code_bytes").unwrap_or(0.0) as u64,
        compile_seconds: field(line, "compile_seconds")?,
        memory_seconds: field(line, "memory_seconds").unwrap_or(0.0),
    })
}

/// Runs the generated program `rounds` times under `ljr` and returns each run's totals.
pub fn measure(ljr: &Path, rounds: usize, scratch: &Path, timeout: Duration) -> Result<Vec<CompileStats>, String> {
    let script = scratch.join("compile_speed.lua");
    std::fs::create_dir_all(scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    std::fs::write(&script, generate_program(FUNCTIONS)).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let mut out = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let inv = Invocation {
            program: ljr.to_path_buf(),
            args: vec!["--tier=baseline".into(), "--jit-stats".into(), script.clone().into_os_string()],
            cwd: scratch.to_path_buf(),
            stdin: None,
            timeout,
            env: Vec::new(),
        };
        let result = process::run(&inv).map_err(|e| format!("cannot run {}: {e}", ljr.display()))?;
        if result.exit != Exit::Code(0) {
            return Err(format!("ljr failed ({:?}): {}", result.exit, String::from_utf8_lossy(&result.stderr)));
        }
        let stderr = String::from_utf8_lossy(&result.stderr);
        out.push(parse_stats(&stderr).ok_or_else(|| format!("no --jit-stats object in ljr's stderr: {stderr}"))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stats_object_is_read_back() {
        let stderr = "noise\n{\"tier\": \"Baseline\", \"functions\": 3001, \"bytecodes\": 81024, \"code_bytes\": 12404543, \"slow_path_data_bytes\": 1, \"compile_seconds\": 0.037771, \"memory_seconds\": 0.017771, \"failures\": 0}\n";
        let s = parse_stats(stderr).unwrap();
        assert_eq!((s.functions, s.bytecodes, s.code_bytes), (3001, 81024, 12404543));
        assert!((s.bytecodes_per_second_without_memory() - 81024.0 / 0.02).abs() < 1.0);
        assert!((s.bytes_per_bytecode() - 153.1).abs() < 0.1);
        assert_eq!(s.cold_code_bytes, 0, "an ljr that does not report it");
        assert!(parse_stats("no json").is_none());
        let with_cold = stderr.replace("\"slow_path_data_bytes\"", "\"cold_code_bytes\": 4049843, \"slow_path_data_bytes\"");
        let s = parse_stats(&with_cold).unwrap();
        assert!((s.in_line_bytes_per_bytecode() - 103.1).abs() < 0.1, "{}", s.in_line_bytes_per_bytecode());
    }

    #[test]
    fn the_program_has_one_function_per_index() {
        let p = generate_program(5);
        assert_eq!(p.matches("= function(").count(), 5);
        assert!(p.contains("for i = 0, 4 do"));
    }
}
