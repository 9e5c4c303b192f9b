//! A hand-written SVG bar chart of the speedups: one panel per baseline (`lua5.1`,
//! `luajit-joff`), one group of bars per benchmark plus the geometric mean, one bar per
//! engine. The y axis is logarithmic (base 2) around 1x, so "2x faster" and "2x slower"
//! look equally large and engines that differ by 50x still fit in one picture.

use std::fmt::Write as _;

use super::{Results, BASELINES};

const PALETTE: &[&str] = &["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 72.0;
const PLOT_H: f64 = 220.0;
const PANEL_GAP: f64 = 90.0;
const BAR_W: f64 = 18.0;
const GROUP_GAP: f64 = 22.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn axis_label(exp: i32) -> String {
    let v = 2f64.powi(exp);
    if v >= 1.0 {
        format!("{v:.0}x")
    } else {
        format!("{}x", v)
    }
}

struct Panel {
    baseline: &'static str,
    /// Engine indices shown in this panel.
    engines: Vec<usize>,
    /// `values[group][i]` for group = benchmark (last group: geomean) and engine `engines[i]`.
    values: Vec<Vec<Option<f64>>>,
}

fn panels(r: &Results) -> Vec<Panel> {
    let mut out = Vec::new();
    for &baseline in BASELINES {
        let Some(base) = r.engine_index(baseline).filter(|&i| r.engines[i].path.is_some()) else {
            continue;
        };
        let engines: Vec<usize> = (0..r.engines.len()).filter(|&e| e != base && r.engines[e].path.is_some()).collect();
        if engines.is_empty() {
            continue;
        }
        let mut values: Vec<Vec<Option<f64>>> = (0..r.benchmarks.len()).map(|b| engines.iter().map(|&e| r.speedup(b, base, e)).collect()).collect();
        values.push(engines.iter().map(|&e| r.geomean_speedup(base, e).map(|(g, _)| g)).collect());
        out.push(Panel { baseline, engines, values });
    }
    out
}

/// The chart as a standalone SVG document.
pub fn render(r: &Results) -> String {
    let panels = panels(r);
    let groups = r.benchmarks.len() + 1;
    let max_engines = panels.iter().map(|p| p.engines.len()).max().unwrap_or(1);
    let group_w = max_engines as f64 * BAR_W + GROUP_GAP;
    let width = (LEFT + RIGHT + groups as f64 * group_w).max(520.0);
    let height = TOP + panels.len().max(1) as f64 * (PLOT_H + PANEL_GAP);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="10" y="18" font-size="14" font-weight="bold">lua-bench: speedup = baseline time / engine time</text>"#);
    let _ = writeln!(s, r##"<text x="10" y="34" fill="#555">median wall time of {} rounds, {}</text>"##, r.rounds, esc(&r.timestamp));

    // Legend: every engine that appears in some panel, in a stable colour.
    let mut x = 10.0;
    for (e, status) in r.engines.iter().enumerate() {
        if !panels.iter().any(|p| p.engines.contains(&e)) {
            continue;
        }
        let color = PALETTE[e % PALETTE.len()];
        let _ = writeln!(s, r#"<rect x="{x:.1}" y="42" width="12" height="12" fill="{color}"/>"#);
        let _ = writeln!(s, r#"<text x="{:.1}" y="52">{}</text>"#, x + 16.0, esc(&status.engine.name));
        x += 28.0 + 7.0 * status.engine.name.len() as f64;
    }

    if panels.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{:.0}">No speedups to plot: neither lua5.1 nor luajit-joff was run next to another engine.</text>"#,
            TOP + 40.0
        );
    }

    for (pi, panel) in panels.iter().enumerate() {
        let top = TOP + pi as f64 * (PLOT_H + PANEL_GAP) + 24.0;
        let all: Vec<f64> = panel.values.iter().flatten().flatten().copied().collect();
        let lo = all.iter().copied().fold(1.0f64, f64::min);
        let hi = all.iter().copied().fold(1.0f64, f64::max);
        let lo_e = (lo.log2().floor() as i32).min(-1);
        let hi_e = (hi.log2().ceil() as i32).max(1);
        let y = |v: f64| top + PLOT_H * (f64::from(hi_e) - v.log2()) / f64::from(hi_e - lo_e);

        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{:.1}" font-size="13" font-weight="bold">vs {}  (&gt;1x: faster than {})</text>"#,
            top - 8.0,
            esc(panel.baseline),
            esc(panel.baseline)
        );
        let right = width - RIGHT;
        for exp in lo_e..=hi_e {
            let gy = y(2f64.powi(exp));
            let (stroke, w) = if exp == 0 { ("#333", 1.5) } else { ("#ddd", 1.0) };
            let _ = writeln!(s, r#"<line x1="{LEFT}" y1="{gy:.1}" x2="{right:.1}" y2="{gy:.1}" stroke="{stroke}" stroke-width="{w}"/>"#);
            let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, gy + 4.0, axis_label(exp));
        }

        let one = y(1.0);
        for (g, vals) in panel.values.iter().enumerate() {
            let gx = LEFT + g as f64 * group_w + GROUP_GAP / 2.0;
            for (i, v) in vals.iter().enumerate() {
                let bx = gx + i as f64 * BAR_W;
                let color = PALETTE[panel.engines[i] % PALETTE.len()];
                match v {
                    Some(v) => {
                        let vy = y(*v);
                        let (ry, rh) = if vy < one { (vy, one - vy) } else { (one, vy - one) };
                        let name = &r.engines[panel.engines[i]].engine.name;
                        let _ = writeln!(
                            s,
                            r#"<rect x="{:.1}" y="{ry:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}: {v:.3}x</title></rect>"#,
                            bx + 1.0,
                            BAR_W - 2.0,
                            rh.max(0.5),
                            esc(name)
                        );
                        let ty = if vy < one { ry - 3.0 } else { ry + rh + 10.0 };
                        let label = if *v >= 10.0 { format!("{v:.0}") } else { format!("{v:.1}") };
                        let _ = writeln!(s, r#"<text x="{:.1}" y="{ty:.1}" text-anchor="middle" font-size="8">{label}</text>"#, bx + BAR_W / 2.0);
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="8" fill="#999">n/a</text>"##,
                            bx + BAR_W / 2.0,
                            one - 3.0
                        );
                    }
                }
            }
            let label = if g < r.benchmarks.len() { r.benchmarks[g].trim_end_matches(".lua") } else { "geomean" };
            let weight = if g < r.benchmarks.len() { "normal" } else { "bold" };
            let cx = gx + vals.len() as f64 * BAR_W / 2.0;
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{:.1}" text-anchor="end" font-weight="{weight}" transform="rotate(-30 {cx:.1} {:.1})">{}</text>"#,
                top + PLOT_H + 16.0,
                top + PLOT_H + 16.0,
                esc(label)
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::{Cell, Engine, EngineStatus};
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn results(engines: &[&str]) -> Results {
        let cell = |t: f64| Cell { times: vec![t], failures: vec![], outputs: vec![b"1\n".to_vec()], output_ok: Some(true) };
        Results {
            timestamp: "2024-02-29T12:34:56Z".into(),
            rounds: 1,
            seed: 1,
            timeout: Duration::from_secs(10),
            benchmarks: vec!["a<b.lua".into(), "c.lua".into()],
            engines: engines
                .iter()
                .map(|n| EngineStatus { engine: Engine { name: n.to_string(), program: n.into(), flags: vec![] }, path: Some(PathBuf::from(n)) })
                .collect(),
            cells: vec![engines.iter().enumerate().map(|(i, _)| cell(1.0 + i as f64)).collect(); 2],
            reference_checked: vec![true; 2],
        }
    }

    #[test]
    fn one_panel_per_available_baseline() {
        let svg = render(&results(&["ljr", "lua5.1", "luajit-joff"]));
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("font-size=\"13\"").count(), 2, "{svg}");
        // Names are escaped; ljr vs lua5.1 is 2/1 = 2x.
        assert!(svg.contains("a&lt;b"), "{svg}");
        assert!(svg.contains("<title>ljr: 2.000x</title>"), "{svg}");
        assert!(svg.contains(">geomean<"), "{svg}");
    }

    #[test]
    fn no_baseline_gives_a_note() {
        let svg = render(&results(&["ljr", "luajit"]));
        assert!(svg.contains("No speedups to plot"), "{svg}");
    }
}
