//! `lua-bench`: times `testsuite/bench/*.lua` on ljr, lua5.1 and LuaJIT.
//!
//! `cargo run --release -p lua51-testsuite --bin lua-bench -- --help` for the options; the
//! logic lives in `lua51_testsuite::bench` so it is unit-tested with the library.
//!
//! Exit status: 0 when every run succeeded and printed what lua5.1 printed (missing engines
//! are reported but do not fail the run), 1 when some run failed or mismatched, 2 for bad
//! usage or when nothing could be run.

use std::process::ExitCode;

use lua51_testsuite::bench::{self, report, Options, USAGE};

fn main() -> ExitCode {
    let opts = match Options::parse(std::env::args().skip(1)) {
        Ok(Some(opts)) => opts,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("lua-bench: {e}");
            return ExitCode::from(2);
        }
    };
    if opts.compile_speed {
        return compile_speed(&opts);
    }
    if opts.gc_latency {
        return gc_latency(opts);
    }
    let engines = match opts.selected_engines() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("lua-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let benchmarks = match bench::find_benchmarks(&opts.bench_dir, opts.filter.as_deref()) {
        Ok(b) if !b.is_empty() => b,
        Ok(_) => {
            eprintln!("lua-bench: no benchmark in {} matches the filter", opts.bench_dir.display());
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("lua-bench: cannot read {}: {e}", opts.bench_dir.display());
            return ExitCode::from(2);
        }
    };

    let results = bench::run(&opts, benchmarks, engines, |line| eprintln!("{line}"));
    if results.engines.iter().all(|e| e.path.is_none()) {
        eprintln!("lua-bench: none of the selected engines is installed (run scripts/setup.sh, build ljr with --release)");
        return ExitCode::from(2);
    }

    println!("\n{}", report::render_text(&results));
    match report::write_all(&results, &opts.out) {
        Ok(paths) => {
            for p in paths {
                println!("wrote {}", p.display());
            }
        }
        Err(e) => {
            eprintln!("lua-bench: cannot write results to {}: {e}", opts.out.display());
            return ExitCode::from(2);
        }
    }
    if results.has_errors() {
        eprintln!("lua-bench: some runs FAILED or printed different output than lua5.1 (see above)");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// `--gc-latency`: each engine's worst pause and loop time for each live-set size.
fn gc_latency(mut opts: Options) -> ExitCode {
    use bench::gc_latency::{measure, SIZES};
    if opts.engines.join(",") == bench::DEFAULT_ENGINES {
        opts.engines = ["ljr", "lua5.1", "luajit-joff"].map(String::from).to_vec();
    }
    let engines = match opts.selected_engines() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("lua-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let scratch = std::env::temp_dir().join(format!("lua-bench-gc-latency-{}", std::process::id()));
    println!("worst collector pause of an allocating loop (ms; loop time in s), best of {} runs:", opts.rounds);
    println!("{:>12}  {}", "live tables", engines.iter().map(|e| format!("{:>22}", e.name)).collect::<Vec<_>>().join(""));
    let mut failed = false;
    for live in SIZES {
        let mut row = format!("{live:>12}  ");
        for engine in &engines {
            let Some(path) = lua51_testsuite::process::locate(&engine.program) else {
                row.push_str(&format!("{:>22}", "missing"));
                continue;
            };
            match measure(engine, &path, live, opts.rounds, &scratch, opts.timeout) {
                Ok(l) => row.push_str(&format!("{:>22}", format!("{:.2} ({:.2} s)", l.worst_ms, l.loop_seconds))),
                Err(e) => {
                    eprintln!("lua-bench: {e}");
                    failed = true;
                    row.push_str(&format!("{:>22}", "FAILED"));
                }
            }
        }
        println!("{row}");
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--compile-speed`: the baseline JIT's totals on the generated program, every round and the
/// best.
fn compile_speed(opts: &Options) -> ExitCode {
    use bench::compile_speed::{measure, FUNCTIONS};
    let scratch = std::env::temp_dir().join(format!("lua-bench-compile-speed-{}", std::process::id()));
    let runs = measure(&opts.ljr, opts.rounds, &scratch, opts.timeout);
    let _ = std::fs::remove_dir_all(&scratch);
    let runs = match runs {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lua-bench: {e}");
            return ExitCode::from(1);
        }
    };
    println!("baseline JIT compile speed, {FUNCTIONS} generated functions ({}):", opts.ljr.display());
    for (k, s) in runs.iter().enumerate() {
        println!(
            "  run {}: {} functions, {} bytecodes, {} bytes of code in {:.3} ms ({:.3} ms of it getting fresh pages): {:.2} M bytecodes/s ({:.2} M without the pages), {:.1} bytes/bytecode ({:.1} in line)",
            k + 1,
            s.functions,
            s.bytecodes,
            s.code_bytes,
            s.compile_seconds * 1e3,
            s.memory_seconds * 1e3,
            s.bytecodes_per_second() / 1e6,
            s.bytecodes_per_second_without_memory() / 1e6,
            s.bytes_per_bytecode(),
            s.in_line_bytes_per_bytecode()
        );
    }
    let best = runs.iter().max_by(|a, b| a.bytecodes_per_second().total_cmp(&b.bytecodes_per_second())).expect("at least one round");
    println!(
        "best: {:.2} M bytecodes/s ({:.2} M without getting fresh pages), {:.1} bytes/bytecode, {:.1} of them in line (paper: 19.1 M/s, 91 bytes/bytecode)",
        best.bytecodes_per_second() / 1e6,
        best.bytecodes_per_second_without_memory() / 1e6,
        best.bytes_per_bytecode(),
        best.in_line_bytes_per_bytecode()
    );
    ExitCode::SUCCESS
}
