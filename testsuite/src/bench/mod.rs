//! Benchmark harness behind the `lua-bench` binary.
//!
//! Every benchmark in `testsuite/bench/*.lua` is run on every selected engine for a number
//! of rounds. Each round runs every (benchmark, engine) pair once, in an order shuffled
//! anew per round, so that slow drifts of the machine (thermal state, a noisy neighbour,
//! page-cache warm-up) are spread over all engines instead of penalising whichever engine
//! happens to run last. Per pair we keep the median (robust) and the minimum (best case)
//! of the wall times; ratios are computed from medians.
//!
//! Timing is only meaningful when the engines computed the same thing, so every run's
//! stdout is checked against `lua5.1`'s and a mismatch is flagged in every output format.

pub mod compile_speed;
pub mod gc_latency;
pub mod report;
pub mod svg;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{self, Exit, Invocation};
use crate::tiers::{self, TIERS};

/// Engine whose stdout is the reference and which is the first speedup baseline.
pub const REFERENCE_ENGINE: &str = "lua5.1";
/// Engines against which speedups are reported, in report order.
pub const BASELINES: &[&str] = &["lua5.1", "luajit-joff"];
/// Engines run when `--engines` is not given.
pub const DEFAULT_ENGINES: &str = "ljr,lua5.1,luajit-joff,luajit";
/// Default number of rounds.
pub const DEFAULT_ROUNDS: usize = 3;
/// Default per-run timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// A way of running a Lua script: a program plus flags before the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Engine {
    /// Short name used in `--engines` and in reports.
    pub name: String,
    /// Program path or name on `PATH`.
    pub program: PathBuf,
    /// Flags before the script.
    pub flags: Vec<String>,
}

impl Engine {
    fn new(name: impl Into<String>, program: impl Into<PathBuf>, flags: &[&str]) -> Self {
        Engine { name: name.into(), program: program.into(), flags: flags.iter().map(|s| s.to_string()).collect() }
    }

    /// The command line as a person would type it (without the script).
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.display().to_string()).chain(self.flags.iter().cloned()).collect::<Vec<_>>().join(" ")
    }
}

/// Every engine the harness knows: `ljr` (default tier), `ljr-<tier>` for each other tier
/// in [`TIERS`], `lua5.1`, `luajit-joff` (LuaJIT's interpreter only) and `luajit`. A tier's
/// `--jit-verify` is dropped: the tests run the JIT's checker, the benchmarks time the tier.
pub fn engine_catalog(ljr: &Path) -> Vec<Engine> {
    let mut engines = Vec::new();
    for tier in TIERS {
        let name = if tier.name == tiers::DEFAULT_TIER { "ljr".to_owned() } else { format!("ljr-{}", tier.name) };
        let flags: Vec<&str> = tier.flags.iter().copied().filter(|f| *f != "--jit-verify").collect();
        engines.push(Engine::new(name, ljr, &flags));
    }
    engines.push(Engine::new("lua5.1", "lua5.1", &[]));
    engines.push(Engine::new("luajit-joff", "luajit", &["-joff"]));
    engines.push(Engine::new("luajit", "luajit", &[]));
    engines
}

/// Command-line options of `lua-bench`.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Only benchmarks whose file name contains this.
    pub filter: Option<String>,
    /// Rounds (each runs every pair once).
    pub rounds: usize,
    /// Engine names, in report order.
    pub engines: Vec<String>,
    /// Directory the result files go to.
    pub out: PathBuf,
    /// The `ljr` binary.
    pub ljr: PathBuf,
    /// Directory holding the benchmark `*.lua` files.
    pub bench_dir: PathBuf,
    /// Per-run timeout.
    pub timeout: Duration,
    /// Seed of the run-order shuffle; random when not given.
    pub seed: Option<u64>,
    /// Measure the baseline JIT's compile speed instead ([`compile_speed`]).
    pub compile_speed: bool,
    /// Measure the collector's worst pauses instead ([`gc_latency`]).
    pub gc_latency: bool,
}

/// Usage text of `lua-bench`.
pub const USAGE: &str = "\
usage: lua-bench [options]

Runs testsuite/bench/*.lua on several Lua engines, checks they print the same as lua5.1,
and reports median/min wall times, speedups and geometric means.

options:
  --filter SUBSTR     only benchmarks whose file name contains SUBSTR
  --rounds N          rounds; each runs every (benchmark, engine) once, shuffled (default 3)
  --engines LIST      comma-separated engines (default ljr,lua5.1,luajit-joff,luajit);
                      known: ljr, ljr-<tier> for other tiers, lua5.1, luajit-joff, luajit
  --out DIR           directory for results .json/.csv/.svg (default bench-results)
  --ljr PATH          the ljr binary (default <workspace>/target/release/ljr)
  --bench-dir DIR     benchmark directory (default testsuite/bench)
  --timeout SECS      per-run timeout (default 300)
  --seed N            seed of the run-order shuffle (default: from the clock)
  --compile-speed     instead: the baseline JIT's compile speed (bytecodes per second,
                      bytes of code per bytecode) on a generated file of 3000 functions,
                      best of --rounds runs of ljr --tier=baseline --jit-stats
  --gc-latency        instead: the worst collector pause of an allocating loop with 10^5,
                      10^6 and 10^7 live tables, best of --rounds runs of each engine
                      (default engines for it: ljr,lua5.1,luajit-joff)
  -h, --help          this text
";

impl Options {
    /// Defaults: every known engine, 3 rounds, `bench-results/`, release `ljr`.
    pub fn defaults() -> Self {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| manifest.parent().expect("testsuite is inside the workspace").join("target"));
        Options {
            filter: None,
            rounds: DEFAULT_ROUNDS,
            engines: DEFAULT_ENGINES.split(',').map(String::from).collect(),
            out: PathBuf::from("bench-results"),
            ljr: target.join("release").join("ljr"),
            bench_dir: manifest.join("bench"),
            timeout: DEFAULT_TIMEOUT,
            seed: None,
            compile_speed: false,
            gc_latency: false,
        }
    }

    /// Parses arguments (without the program name). `Ok(None)` means `--help` was asked.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Self>, String> {
        let mut opts = Options::defaults();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "-h" || arg == "--help" {
                return Ok(None);
            }
            if arg == "--gc-latency" {
                opts.gc_latency = true;
                continue;
            }
            if arg == "--compile-speed" {
                opts.compile_speed = true;
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut value = || inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--filter" => opts.filter = Some(value()?),
                "--rounds" => {
                    let v = value()?;
                    opts.rounds = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| format!("--rounds: bad count `{v}`"))?;
                }
                "--engines" => {
                    opts.engines = value()?.split(',').map(|s| s.trim().replace("luajit -joff", "luajit-joff")).filter(|s| !s.is_empty()).collect();
                    if opts.engines.is_empty() {
                        return Err("--engines: empty list".into());
                    }
                }
                "--out" => opts.out = PathBuf::from(value()?),
                "--ljr" => opts.ljr = PathBuf::from(value()?),
                "--bench-dir" => opts.bench_dir = PathBuf::from(value()?),
                "--timeout" => {
                    let v = value()?;
                    let secs: f64 = v
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| format!("--timeout: bad number of seconds `{v}`"))?;
                    opts.timeout = Duration::from_secs_f64(secs);
                }
                "--seed" => {
                    let v = value()?;
                    opts.seed = Some(v.parse().map_err(|_| format!("--seed: bad number `{v}`"))?);
                }
                _ => return Err(format!("unknown option `{arg}`\n\n{USAGE}")),
            }
        }
        Ok(Some(opts))
    }

    /// The selected engines, resolved against the catalog. Unknown names are an error.
    pub fn selected_engines(&self) -> Result<Vec<Engine>, String> {
        let catalog = engine_catalog(&self.ljr);
        let mut out: Vec<Engine> = Vec::new();
        for name in &self.engines {
            let engine = catalog.iter().find(|e| &e.name == name).ok_or_else(|| {
                let known: Vec<&str> = catalog.iter().map(|e| e.name.as_str()).collect();
                format!("unknown engine `{name}`; known engines: {}", known.join(", "))
            })?;
            if !out.contains(engine) {
                out.push(engine.clone());
            }
        }
        Ok(out)
    }
}

/// The benchmark files (names, sorted) in `dir` matching `filter`.
pub fn find_benchmarks(dir: &Path, filter: Option<&str>) -> std::io::Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lua"))
        .filter(|n| filter.is_none_or(|f| n.contains(f)))
        .collect();
    names.sort();
    Ok(names)
}

/// An engine with the executable it resolved to, or `None` when it is not installed.
#[derive(Debug, Clone)]
pub struct EngineStatus {
    /// The engine.
    pub engine: Engine,
    /// Resolved executable; `None` means missing (reported and skipped).
    pub path: Option<PathBuf>,
}

/// Observations of one (benchmark, engine) pair over all rounds.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Wall times in seconds of the successful runs, in run order.
    pub times: Vec<f64>,
    /// One message per failed run (bad exit status, timeout, cannot start).
    pub failures: Vec<String>,
    /// Distinct stdouts seen from successful runs (normally exactly one).
    pub outputs: Vec<Vec<u8>>,
    /// `Some(true)` when every successful run printed the reference stdout, `Some(false)`
    /// when some run did not, `None` when there was nothing to compare.
    pub output_ok: Option<bool>,
}

impl Cell {
    /// Median wall time in seconds.
    pub fn median(&self) -> Option<f64> {
        median(&self.times)
    }

    /// Minimum wall time in seconds.
    pub fn min(&self) -> Option<f64> {
        self.times.iter().copied().reduce(f64::min)
    }

    /// Whether this pair has a time that can be used in a ratio.
    pub fn usable(&self) -> bool {
        self.failures.is_empty() && self.output_ok != Some(false) && !self.times.is_empty()
    }
}

/// All results of one harness run.
#[derive(Debug, Clone)]
pub struct Results {
    /// UTC time the run started, ISO 8601.
    pub timestamp: String,
    /// Rounds run.
    pub rounds: usize,
    /// Shuffle seed.
    pub seed: u64,
    /// Per-run timeout.
    pub timeout: Duration,
    /// Benchmark file names.
    pub benchmarks: Vec<String>,
    /// Engines, in report order, including missing ones.
    pub engines: Vec<EngineStatus>,
    /// `cells[b][e]` for benchmark `b` and engine `e`.
    pub cells: Vec<Vec<Cell>>,
    /// Per benchmark: whether a `lua5.1` reference output was available for checking.
    pub reference_checked: Vec<bool>,
}

impl Results {
    /// Index of an engine by name, if it was selected.
    pub fn engine_index(&self, name: &str) -> Option<usize> {
        self.engines.iter().position(|e| e.engine.name == name)
    }

    /// `time(baseline) / time(engine)` for benchmark `b`: how many times faster the engine
    /// is than the baseline. `None` unless both have clean, usable times.
    pub fn speedup(&self, b: usize, baseline: usize, engine: usize) -> Option<f64> {
        let (base, cell) = (&self.cells[b][baseline], &self.cells[b][engine]);
        if !base.usable() || !cell.usable() {
            return None;
        }
        Some(base.median()? / cell.median()?)
    }

    /// Geometric mean over the benchmarks where [`Results::speedup`] is defined, with the
    /// number of benchmarks it covers.
    pub fn geomean_speedup(&self, baseline: usize, engine: usize) -> Option<(f64, usize)> {
        let ratios: Vec<f64> = (0..self.benchmarks.len()).filter_map(|b| self.speedup(b, baseline, engine)).collect();
        geomean(&ratios).map(|g| (g, ratios.len()))
    }

    /// Human-readable problems: mismatching outputs, failed runs, unchecked outputs,
    /// missing engines. Empty when everything is clean.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for status in &self.engines {
            if status.path.is_none() {
                out.push(format!("engine {} (`{}`) is not installed; skipped", status.engine.name, status.engine.command_line()));
            }
        }
        for (b, bench) in self.benchmarks.iter().enumerate() {
            if !self.reference_checked[b] {
                out.push(format!("{bench}: no lua5.1 reference output, stdout NOT CHECKED"));
            }
            for (e, status) in self.engines.iter().enumerate() {
                let cell = &self.cells[b][e];
                if cell.output_ok == Some(false) {
                    out.push(format!("OUTPUT MISMATCH: {} on {bench} printed something different from lua5.1", status.engine.name));
                }
                if cell.outputs.len() > 1 {
                    out.push(format!(
                        "OUTPUT UNSTABLE: {} on {bench} printed {} different outputs across rounds",
                        status.engine.name,
                        cell.outputs.len()
                    ));
                }
                for f in &cell.failures {
                    out.push(format!("FAILED: {} on {bench}: {f}", status.engine.name));
                }
            }
        }
        out
    }

    /// Whether any run failed or printed the wrong thing (missing engines do not count).
    pub fn has_errors(&self) -> bool {
        self.cells.iter().flatten().any(|c| !c.failures.is_empty() || c.output_ok == Some(false) || c.outputs.len() > 1)
    }
}

/// Median of `xs` (mean of the two middle values for an even count).
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Geometric mean of positive values.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// SplitMix64: a tiny, good-enough PRNG for shuffling the run order reproducibly.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeds the generator.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// One timed run of `bench` on `engine`: `Ok((seconds, stdout))` or a failure message.
fn run_once(opts: &Options, engine: &Engine, program: &Path, bench: &str) -> Result<(f64, Vec<u8>), String> {
    let mut args: Vec<OsString> = engine.flags.iter().map(OsString::from).collect();
    args.push(OsString::from(bench));
    let inv = Invocation { program: program.to_path_buf(), args, cwd: opts.bench_dir.clone(), stdin: None, timeout: opts.timeout, env: Vec::new() };
    let out = process::run(&inv).map_err(|e| e.to_string())?;
    match out.exit {
        Exit::Code(0) => Ok((out.wall.as_secs_f64(), out.stdout)),
        Exit::TimedOut => Err(format!("timed out after {:.0} s", opts.timeout.as_secs_f64())),
        exit => {
            let first = out.stderr.split(|&b| b == b'\n').next().unwrap_or_default();
            Err(format!("{exit}: {}", String::from_utf8_lossy(first)))
        }
    }
}

/// Runs the whole matrix. Progress goes to stderr through `progress`.
pub fn run(opts: &Options, benchmarks: Vec<String>, engines: Vec<Engine>, mut progress: impl FnMut(&str)) -> Results {
    let seed =
        opts.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0));
    let engines: Vec<EngineStatus> = engines.into_iter().map(|engine| EngineStatus { path: process::locate(&engine.program), engine }).collect();
    let mut cells = vec![vec![Cell::default(); engines.len()]; benchmarks.len()];

    let mut pairs: Vec<(usize, usize)> =
        (0..benchmarks.len()).flat_map(|b| (0..engines.len()).map(move |e| (b, e))).filter(|&(_, e)| engines[e].path.is_some()).collect();
    let total = pairs.len() * opts.rounds;
    let mut rng = SplitMix64::new(seed);
    let mut done = 0;
    for round in 1..=opts.rounds {
        rng.shuffle(&mut pairs);
        for &(b, e) in &pairs {
            done += 1;
            let status = &engines[e];
            let path = status.path.as_deref().expect("only available engines are scheduled");
            let cell = &mut cells[b][e];
            match run_once(opts, &status.engine, path, &benchmarks[b]) {
                Ok((secs, stdout)) => {
                    progress(&format!("[{done}/{total}] round {round}: {:<16} {:<14} {:>9.3} s", benchmarks[b], status.engine.name, secs));
                    cell.times.push(secs);
                    if !cell.outputs.contains(&stdout) {
                        cell.outputs.push(stdout);
                    }
                }
                Err(msg) => {
                    progress(&format!("[{done}/{total}] round {round}: {:<16} {:<14} FAILED: {msg}", benchmarks[b], status.engine.name));
                    cell.failures.push(msg);
                }
            }
        }
    }

    // The reference output: lua5.1's own runs when it was benchmarked, else one extra,
    // untimed lua5.1 run per benchmark (when lua5.1 is installed at all).
    let reference_idx = engines.iter().position(|s| s.engine.name == REFERENCE_ENGINE && s.path.is_some());
    let reference_program = process::locate(Path::new(REFERENCE_ENGINE));
    let mut reference_checked = vec![false; benchmarks.len()];
    for (b, bench) in benchmarks.iter().enumerate() {
        let reference: Option<Vec<u8>> = match reference_idx {
            Some(r) if cells[b][r].outputs.len() == 1 => Some(cells[b][r].outputs[0].clone()),
            Some(_) => None,
            None => reference_program.as_deref().and_then(|p| {
                progress(&format!("reference run: {bench} on lua5.1 (untimed)"));
                let lua = Engine::new(REFERENCE_ENGINE, p, &[]);
                run_once(opts, &lua, p, bench).ok().map(|(_, out)| out)
            }),
        };
        let Some(reference) = reference else { continue };
        reference_checked[b] = true;
        for cell in &mut cells[b] {
            if !cell.outputs.is_empty() {
                cell.output_ok = Some(cell.outputs.iter().all(|o| *o == reference));
            }
        }
    }

    Results {
        timestamp: report::utc_timestamp(std::time::SystemTime::now()),
        rounds: opts.rounds,
        seed,
        timeout: opts.timeout,
        benchmarks,
        engines,
        cells,
        reference_checked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn option_parsing() {
        let o = Options::parse(args("--filter fib --rounds=5 --engines lua5.1,luajit --out /tmp/x --ljr ./ljr --seed 7")).unwrap().unwrap();
        assert_eq!(o.filter.as_deref(), Some("fib"));
        assert_eq!(o.rounds, 5);
        assert_eq!(o.engines, ["lua5.1", "luajit"]);
        assert_eq!(o.out, PathBuf::from("/tmp/x"));
        assert_eq!(o.ljr, PathBuf::from("./ljr"));
        assert_eq!(o.seed, Some(7));
        assert_eq!(Options::parse(args("--help")).unwrap(), None);
        assert!(Options::parse(args("--rounds 0")).is_err());
        assert!(Options::parse(args("--rounds")).is_err());
        assert!(Options::parse(args("--bogus")).is_err());
    }

    #[test]
    fn engines_resolve_against_the_catalog() {
        let o = Options::parse(args("--engines ljr,lua5.1,luajit-joff,ljr")).unwrap().unwrap();
        let e = o.selected_engines().unwrap();
        assert_eq!(e.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["ljr", "lua5.1", "luajit-joff"]);
        assert_eq!(e[2].command_line(), "luajit -joff");
        let o = Options::parse(args("--engines lua9")).unwrap().unwrap();
        assert!(o.selected_engines().unwrap_err().contains("known engines"));
    }

    #[test]
    fn statistics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        let g = geomean(&[2.0, 8.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12);
        assert_eq!(geomean(&[1.0, 0.0]), None);
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        SplitMix64::new(1).shuffle(&mut a);
        SplitMix64::new(1).shuffle(&mut b);
        assert_eq!(a, b);
        assert_ne!(a, (0..50).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }

    fn results_with(cells: Vec<Vec<Cell>>) -> Results {
        let names = ["lua5.1", "ljr"];
        Results {
            timestamp: "2024-01-01T00:00:00Z".into(),
            rounds: 1,
            seed: 0,
            timeout: DEFAULT_TIMEOUT,
            benchmarks: (0..cells.len()).map(|i| format!("b{i}.lua")).collect(),
            engines: names.iter().map(|n| EngineStatus { engine: Engine::new(*n, *n, &[]), path: Some(PathBuf::from(n)) }).collect(),
            reference_checked: vec![true; cells.len()],
            cells,
        }
    }

    fn cell(t: f64, ok: bool) -> Cell {
        Cell { times: vec![t], failures: vec![], outputs: vec![b"x".to_vec()], output_ok: Some(ok) }
    }

    #[test]
    fn speedups_skip_mismatching_outputs() {
        let r = results_with(vec![vec![cell(2.0, true), cell(1.0, true)], vec![cell(9.0, true), cell(1.0, false)]]);
        assert_eq!(r.speedup(0, 0, 1), Some(2.0));
        assert_eq!(r.speedup(1, 0, 1), None);
        assert_eq!(r.geomean_speedup(0, 1), Some((2.0, 1)));
        assert!(r.has_errors());
        assert!(r.problems().iter().any(|p| p.contains("OUTPUT MISMATCH: ljr on b1.lua")));
    }
}
