//! Text table, JSON and CSV renderings of [`Results`], and writing them to disk.
//!
//! JSON and CSV are written by hand: the shapes are flat and fixed, and keeping serde out
//! keeps this crate quick to build next to the VM crates.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{Results, BASELINES};

/// `YYYY-MM-DDTHH:MM:SSZ` for `t` (UTC), without a date crate.
pub fn utc_timestamp(t: SystemTime) -> String {
    let secs = t.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

fn fmt_secs(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1}ms", s * 1e3)
    } else {
        format!("{s:.3}s")
    }
}

fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        Some(r) if r >= 10.0 => format!("{r:.1}x"),
        Some(r) => format!("{r:.2}x"),
        None => "-".into(),
    }
}

fn row(out: &mut String, cols: &[String], widths: &[usize]) {
    let mut line = String::new();
    for (i, (c, w)) in cols.iter().zip(widths).enumerate() {
        if i == 0 {
            let _ = write!(line, "{c:<w$}");
        } else {
            let _ = write!(line, "  {c:>w$}");
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

fn table(out: &mut String, header: Vec<String>, rows: Vec<Vec<String>>) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    row(out, &header, &widths);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    row(out, &rule, &widths);
    for r in &rows {
        row(out, r, &widths);
    }
}

/// The report printed at the end of a run.
pub fn render_text(r: &Results) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "lua-bench {}  rounds={}  seed={}", r.timestamp, r.rounds, r.seed);
    for s in &r.engines {
        let where_ = match &s.path {
            Some(p) => p.display().to_string(),
            None => "NOT INSTALLED, skipped".into(),
        };
        let _ = writeln!(out, "  {:<12} {}  ({where_})", s.engine.name, s.engine.command_line());
    }

    let _ = writeln!(out, "\nWall time, median (min) of {} rounds:", r.rounds);
    let live: Vec<usize> = (0..r.engines.len()).filter(|&e| r.engines[e].path.is_some()).collect();
    let header = std::iter::once("benchmark".to_owned()).chain(live.iter().map(|&e| r.engines[e].engine.name.clone())).collect();
    let rows = r
        .benchmarks
        .iter()
        .enumerate()
        .map(|(b, name)| {
            std::iter::once(name.clone())
                .chain(live.iter().map(|&e| {
                    let c = &r.cells[b][e];
                    let mut s = match (c.median(), c.min()) {
                        (Some(m), Some(n)) => format!("{} ({})", fmt_secs(m), fmt_secs(n)),
                        _ => "-".into(),
                    };
                    if !c.failures.is_empty() {
                        s.push_str(" FAILED");
                    }
                    if c.output_ok == Some(false) {
                        s.push_str(" MISMATCH");
                    }
                    s
                }))
                .collect()
        })
        .collect();
    table(&mut out, header, rows);

    for base_name in BASELINES {
        let Some(base) = r.engine_index(base_name).filter(|&i| r.engines[i].path.is_some()) else {
            continue;
        };
        let others: Vec<usize> = live.iter().copied().filter(|&e| e != base).collect();
        if others.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\nSpeedup vs {base_name} ({base_name} time / engine time; >1 means faster):");
        let header = std::iter::once("benchmark".to_owned()).chain(others.iter().map(|&e| r.engines[e].engine.name.clone())).collect();
        let mut rows: Vec<Vec<String>> = (0..r.benchmarks.len())
            .map(|b| std::iter::once(r.benchmarks[b].clone()).chain(others.iter().map(|&e| fmt_ratio(r.speedup(b, base, e)))).collect())
            .collect();
        rows.push(
            std::iter::once("geomean".to_owned())
                .chain(others.iter().map(|&e| match r.geomean_speedup(base, e) {
                    Some((g, n)) if n < r.benchmarks.len() => {
                        format!("{} ({n}/{})", fmt_ratio(Some(g)), r.benchmarks.len())
                    }
                    g => fmt_ratio(g.map(|(g, _)| g)),
                }))
                .collect(),
        );
        table(&mut out, header, rows);
    }

    let problems = r.problems();
    if !problems.is_empty() {
        out.push('\n');
        for p in problems {
            let loud = p.starts_with("OUTPUT") || p.starts_with("FAILED") || p.contains("NOT CHECKED");
            let _ = writeln!(out, "{}{p}", if loud { "!!! " } else { "note: " });
        }
    }
    out
}

/// JSON string literal.
fn js(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON number, or `null` for a missing or non-finite value.
fn jn(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x}"),
        _ => "null".into(),
    }
}

fn jlist(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// The full results as JSON (schema: see `testsuite/README.md`).
pub fn to_json(r: &Results) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{{");
    let _ = writeln!(out, "  \"tool\": \"lua-bench\",");
    let _ = writeln!(out, "  \"timestamp\": {},", js(&r.timestamp));
    let _ = writeln!(out, "  \"rounds\": {},", r.rounds);
    let _ = writeln!(out, "  \"seed\": {},", r.seed);
    let _ = writeln!(out, "  \"timeout_s\": {},", r.timeout.as_secs_f64());
    let engines = r.engines.iter().map(|s| {
        format!(
            "{{\"name\": {}, \"command\": {}, \"path\": {}, \"available\": {}}}",
            js(&s.engine.name),
            js(&s.engine.command_line()),
            s.path.as_ref().map_or("null".into(), |p| js(&p.display().to_string())),
            s.path.is_some()
        )
    });
    let _ = writeln!(out, "  \"engines\": [\n    {}\n  ],", engines.collect::<Vec<_>>().join(",\n    "));
    let mut benches = Vec::new();
    for (b, name) in r.benchmarks.iter().enumerate() {
        let results = r.engines.iter().enumerate().filter(|(_, s)| s.path.is_some()).map(|(e, s)| {
            let c = &r.cells[b][e];
            format!(
                "{{\"engine\": {}, \"times_s\": {}, \"median_s\": {}, \"min_s\": {}, \"output_matches_reference\": {}, \"failures\": {}}}",
                js(&s.engine.name),
                jlist(c.times.iter().map(|t| jn(Some(*t)))),
                jn(c.median()),
                jn(c.min()),
                c.output_ok.map_or("null".into(), |ok| ok.to_string()),
                jlist(c.failures.iter().map(|f| js(f))),
            )
        });
        benches.push(format!(
            "{{\"name\": {}, \"reference_checked\": {}, \"results\": [\n      {}\n    ]}}",
            js(name),
            r.reference_checked[b],
            results.collect::<Vec<_>>().join(",\n      ")
        ));
    }
    let _ = writeln!(out, "  \"benchmarks\": [\n    {}\n  ],", benches.join(",\n    "));
    let mut speedups = Vec::new();
    for base_name in BASELINES {
        let Some(base) = r.engine_index(base_name).filter(|&i| r.engines[i].path.is_some()) else {
            continue;
        };
        for (e, s) in r.engines.iter().enumerate().filter(|&(e, s)| e != base && s.path.is_some()) {
            let per = r.benchmarks.iter().enumerate().map(|(b, n)| format!("{}: {}", js(n), jn(r.speedup(b, base, e))));
            speedups.push(format!(
                "{{\"baseline\": {}, \"engine\": {}, \"per_benchmark\": {{{}}}, \"geomean\": {}}}",
                js(base_name),
                js(&s.engine.name),
                per.collect::<Vec<_>>().join(", "),
                jn(r.geomean_speedup(base, e).map(|(g, _)| g))
            ));
        }
    }
    let _ = writeln!(out, "  \"speedups\": [\n    {}\n  ],", speedups.join(",\n    "));
    let _ = writeln!(out, "  \"problems\": {}", jlist(r.problems().iter().map(|p| js(p))));
    out.push_str("}\n");
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// One row per (benchmark, engine) with median/min and the speedups vs each baseline.
pub fn to_csv(r: &Results) -> String {
    let mut out = String::from("benchmark,engine,median_s,min_s,runs,failures,output_ok");
    for b in BASELINES {
        let _ = write!(out, ",speedup_vs_{b}");
    }
    out.push('\n');
    let num = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x}"));
    for (b, name) in r.benchmarks.iter().enumerate() {
        for (e, s) in r.engines.iter().enumerate().filter(|(_, s)| s.path.is_some()) {
            let c = &r.cells[b][e];
            let _ = write!(
                out,
                "{},{},{},{},{},{},{}",
                csv_field(name),
                csv_field(&s.engine.name),
                num(c.median()),
                num(c.min()),
                c.times.len(),
                c.failures.len(),
                c.output_ok.map_or(String::new(), |ok| ok.to_string())
            );
            for base_name in BASELINES {
                let ratio = r.engine_index(base_name).filter(|&base| base != e).and_then(|base| r.speedup(b, base, e));
                let _ = write!(out, ",{}", num(ratio));
            }
            out.push('\n');
        }
    }
    out
}

/// Writes `<stem>.json`, `<stem>.csv` and `<stem>.svg` into `dir` twice: under a
/// timestamped stem (history) and as `latest.*` (a stable name for scripts).
pub fn write_all(r: &Results, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let stamp: String = r.timestamp.chars().filter(|c| c.is_ascii_digit() || *c == 'T').collect();
    let files = [("json", to_json(r)), ("csv", to_csv(r)), ("svg", super::svg::render(r))];
    let mut written = Vec::new();
    for stem in [format!("bench-{stamp}"), "latest".to_owned()] {
        for (ext, text) in &files {
            let path = dir.join(format!("{stem}.{ext}"));
            std::fs::write(&path, text)?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::super::{Cell, Engine, EngineStatus};
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_210_096); // leap-year Feb 29
        assert_eq!(utc_timestamp(t), "2024-02-29T12:34:56Z");
    }

    #[test]
    fn json_escaping() {
        assert_eq!(js("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(jn(Some(f64::NAN)), "null");
    }

    fn sample() -> Results {
        let engine = |n: &str, ok: bool| EngineStatus {
            engine: Engine { name: n.into(), program: n.into(), flags: vec![] },
            path: ok.then(|| PathBuf::from(n)),
        };
        let cell = |t: f64, ok: bool| Cell { times: vec![t, t * 1.1], failures: vec![], outputs: vec![b"1\n".to_vec()], output_ok: Some(ok) };
        Results {
            timestamp: "2024-02-29T12:34:56Z".into(),
            rounds: 2,
            seed: 42,
            timeout: Duration::from_secs(10),
            benchmarks: vec!["fib.lua".into(), "loop.lua".into()],
            engines: vec![engine("ljr", true), engine("lua5.1", true), engine("luajit-joff", false)],
            cells: vec![vec![cell(0.5, true), cell(1.0, true), Cell::default()], vec![cell(0.1, false), cell(2.0, true), Cell::default()]],
            reference_checked: vec![true, true],
        }
    }

    #[test]
    fn text_report_flags_mismatch_and_missing_engines() {
        let text = render_text(&sample());
        assert!(text.contains("NOT INSTALLED"), "{text}");
        assert!(text.contains("MISMATCH"), "{text}");
        assert!(text.contains("!!! OUTPUT MISMATCH: ljr on loop.lua"), "{text}");
        assert!(text.contains("Speedup vs lua5.1"), "{text}");
        // fib: 1.05 / 0.525 = 2x; loop is excluded from the geomean because of the mismatch.
        assert!(text.contains("2.00x (1/2)"), "{text}");
        assert!(!text.contains("Speedup vs luajit-joff"), "{text}");
    }

    #[test]
    fn csv_and_json_shapes() {
        let r = sample();
        let csv = to_csv(&r);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "benchmark,engine,median_s,min_s,runs,failures,output_ok,speedup_vs_lua5.1,speedup_vs_luajit-joff");
        assert_eq!(lines.len(), 5);
        assert!(lines[1].starts_with("fib.lua,ljr,0.525,0.5,2,0,true,2,"), "{}", lines[1]);
        let json = to_json(&r);
        assert!(json.contains("\"output_matches_reference\": false"), "{json}");
        assert!(json.contains("\"available\": false"), "{json}");
        assert_eq!(json.matches('{').count(), json.matches('}').count());
    }
}
