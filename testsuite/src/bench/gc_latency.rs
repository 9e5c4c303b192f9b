//! The collector's pauses (`lua-bench --gc-latency`): a program keeps N small tables alive and
//! then allocates garbage in a loop, reading the CPU clock every 16 allocations; the longest
//! gap is the worst pause the collector (incremental or not) put into the loop. The loop
//! allocates twice the live set and more, so at least one whole cycle runs inside it, under
//! every engine's default pacing. Run for N = 10^5, 10^6 and 10^7 on ljr, lua5.1 and
//! `luajit -joff` side by side; the loop's total time is reported too (the throughput the
//! collector leaves).

use std::path::Path;
use std::time::Duration;

use crate::bench::Engine;
use crate::process::{self, Exit, Invocation};

/// Live objects of each configuration.
pub const SIZES: [usize; 3] = [100_000, 1_000_000, 10_000_000];

/// The program: `arg[1]` live tables, then an allocating loop; prints the worst gap between
/// two clock readings (milliseconds) and the loop's time (seconds).
pub const PROGRAM: &str = r#"local n = tonumber(arg[1])
local live = {}
for i = 1, n do live[i] = {} end
collectgarbage()
local clock = os.clock
local rounds = math.floor((2 * n + 1000000) / 16)
local worst = 0
local start = clock()
local last = start
for i = 1, rounds do
  for j = 1, 16 do local garbage = {j} end
  local now = clock()
  if now - last > worst then worst = now - last end
  last = now
end
print(string.format("%.3f %.3f %d", worst * 1000, clock() - start, #live))
"#;

/// One run: the worst pause (ms) and the loop's time (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    pub worst_ms: f64,
    pub loop_seconds: f64,
}

/// Reads what [`PROGRAM`] prints; `live` must come back as the count of live tables.
pub fn parse_output(stdout: &str, live: usize) -> Option<Latency> {
    let mut words = stdout.split_whitespace();
    let worst_ms = words.next()?.parse().ok()?;
    let loop_seconds = words.next()?.parse().ok()?;
    (words.next()?.parse::<usize>().ok()? == live).then_some(Latency { worst_ms, loop_seconds })
}

/// Runs [`PROGRAM`] with `live` objects on `engine` (found at `path`) `rounds` times; returns
/// the best run (the smallest worst pause: a loaded machine only adds to it).
pub fn measure(engine: &Engine, path: &Path, live: usize, rounds: usize, scratch: &Path, timeout: Duration) -> Result<Latency, String> {
    let script = scratch.join("gc_latency.lua");
    std::fs::create_dir_all(scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    std::fs::write(&script, PROGRAM).map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let mut best: Option<Latency> = None;
    for _ in 0..rounds.max(1) {
        let mut args: Vec<std::ffi::OsString> = engine.flags.iter().map(Into::into).collect();
        args.push(script.clone().into_os_string());
        args.push(live.to_string().into());
        let inv = Invocation { program: path.to_path_buf(), args, cwd: scratch.to_path_buf(), stdin: None, timeout, env: Vec::new() };
        let result = process::run(&inv).map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        if result.exit != Exit::Code(0) {
            return Err(format!("{} failed ({:?}): {}", engine.name, result.exit, String::from_utf8_lossy(&result.stderr)));
        }
        let stdout = String::from_utf8_lossy(&result.stdout);
        let run = parse_output(&stdout, live).ok_or_else(|| format!("{} printed `{}`", engine.name, stdout.trim()))?;
        if best.is_none_or(|b| run.worst_ms < b.worst_ms) {
            best = Some(run);
        }
    }
    Ok(best.expect("at least one round"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_read_back_and_checked() {
        assert_eq!(parse_output("12.500 3.250 1000\n", 1000), Some(Latency { worst_ms: 12.5, loop_seconds: 3.25 }));
        assert_eq!(parse_output("12.500 3.250 999\n", 1000), None, "the live set must have survived");
        assert_eq!(parse_output("oops", 1000), None);
    }
}
