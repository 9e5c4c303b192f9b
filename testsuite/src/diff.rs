//! A small line-based unified diff for failure reports.
//!
//! Outputs are compared byte-for-byte elsewhere; this only has to show a person *where*
//! they differ. It trims the common prefix and suffix, runs an LCS over what is left when
//! that is small enough (and otherwise shows the middle as replaced wholesale), and prints
//! hunks with context. Bytes that would be invisible or garble a terminal (control
//! characters, invalid UTF-8, a missing final newline) are made visible.

use std::fmt::Write as _;

/// Above this many LCS cells the middle part is shown as one replaced block instead.
const LCS_CELL_LIMIT: usize = 4_000_000;
/// Displayed lines are cut after this many characters: one runaway line (a string doubled
/// in a loop) must not bury the rest of the report.
const MAX_LINE_CHARS: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    Delete,
    Insert,
}

/// Splits into lines that keep their `\n`, so a missing final newline is a difference.
fn split_lines(s: &[u8]) -> Vec<&[u8]> {
    s.split_inclusive(|&b| b == b'\n').collect()
}

fn edit_script(a: &[&[u8]], b: &[&[u8]]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);

    let mut ops = vec![Op::Equal; prefix];
    if (ma.len() + 1).saturating_mul(mb.len() + 1) <= LCS_CELL_LIMIT {
        // lcs[i][j] = length of the LCS of ma[i..] and mb[j..].
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] { lcs[(i + 1) * w + j + 1] + 1 } else { lcs[(i + 1) * w + j].max(lcs[i * w + j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                ops.push(Op::Equal);
                i += 1;
                j += 1;
            } else if j == mb.len() || (i < ma.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                ops.push(Op::Delete);
                i += 1;
            } else {
                ops.push(Op::Insert);
                j += 1;
            }
        }
    } else {
        ops.extend(std::iter::repeat_n(Op::Delete, ma.len()));
        ops.extend(std::iter::repeat_n(Op::Insert, mb.len()));
    }
    ops.extend(std::iter::repeat_n(Op::Equal, suffix));
    ops
}

/// Renders a line for a terminal: valid UTF-8 and tabs as they are, other control
/// characters and invalid bytes as escapes.
pub fn escape_line(line: &[u8]) -> String {
    let mut out = String::with_capacity(line.len());
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => out.push('\t'),
                '\r' => out.push_str("\\r"),
                '\0' => out.push_str("\\0"),
                c if c.is_control() => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// A unified diff of `expected` (`-` lines) against `actual` (`+` lines) with `context`
/// lines around each change, cut after about `max_lines` output lines. Empty when equal.
pub fn unified_diff(expected: &[u8], actual: &[u8], context: usize, max_lines: usize) -> String {
    if expected == actual {
        return String::new();
    }
    let (a, b) = (split_lines(expected), split_lines(actual));
    let ops = edit_script(&a, &b);

    // Line positions in `a` and `b` before each op.
    let mut pos = Vec::with_capacity(ops.len() + 1);
    let (mut ia, mut ib) = (0usize, 0usize);
    for op in &ops {
        pos.push((ia, ib));
        match op {
            Op::Equal => (ia, ib) = (ia + 1, ib + 1),
            Op::Delete => ia += 1,
            Op::Insert => ib += 1,
        }
    }
    pos.push((ia, ib));

    // Group changes into hunks whose context would touch or overlap.
    let changes: Vec<usize> = (0..ops.len()).filter(|&i| ops[i] != Op::Equal).collect();
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &c in &changes {
        let (start, end) = (c.saturating_sub(context), (c + context + 1).min(ops.len()));
        match hunks.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => hunks.push((start, end)),
        }
    }

    let mut out = String::new();
    let mut printed = 0usize;
    for (start, end) in hunks {
        let (a0, b0) = pos[start];
        let (a1, b1) = pos[end];
        let _ = writeln!(out, "@@ -{} +{} @@", range(a0, a1 - a0), range(b0, b1 - b0));
        for i in start..end {
            if printed >= max_lines {
                let remaining = changes.iter().filter(|&&c| c >= i).count();
                let _ = writeln!(out, "... diff cut here ({remaining} more changed lines)");
                return out;
            }
            let (sign, line) = match ops[i] {
                Op::Equal => (' ', a[pos[i].0]),
                Op::Delete => ('-', a[pos[i].0]),
                Op::Insert => ('+', b[pos[i].1]),
            };
            let text = line.strip_suffix(b"\n");
            let _ = writeln!(out, "{sign}{}", shorten(escape_line(text.unwrap_or(line))));
            if text.is_none() {
                out.push_str("\\ No newline at end of output\n");
            }
            printed += 1;
        }
    }
    out
}

fn shorten(line: String) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            format!("{}... [{rest} more characters]", &line[..cut])
        }
        None => line,
    }
}

/// `start,count` in unified-diff convention (1-based; a zero-length range names the line
/// before it).
fn range(start: usize, count: usize) -> String {
    if count == 0 {
        format!("{start},0")
    } else {
        format!("{},{count}", start + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_inputs_give_empty_diff() {
        assert_eq!(unified_diff(b"a\nb\n", b"a\nb\n", 3, 100), "");
    }

    #[test]
    fn single_changed_line_with_context() {
        let exp = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let act = b"1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
        let d = unified_diff(exp, act, 2, 100);
        assert_eq!(d, "@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+FIVE\n 6\n 7\n");
    }

    #[test]
    fn insertion_and_deletion_are_aligned() {
        let d = unified_diff(b"a\nb\nc\n", b"a\nc\nd\n", 0, 100);
        assert_eq!(d, "@@ -2,1 +1,0 @@\n-b\n@@ -3,0 +3,1 @@\n+d\n");
    }

    #[test]
    fn missing_final_newline_is_visible() {
        let d = unified_diff(b"x\n", b"x", 3, 100);
        assert!(d.contains("-x\n+x\n\\ No newline at end of output"), "{d}");
    }

    #[test]
    fn invisible_bytes_are_escaped() {
        assert_eq!(escape_line(b"a\tb\r\0\x01\xff"), "a\tb\\r\\0\\x01\\xff");
        assert_eq!(escape_line("héllo".as_bytes()), "héllo");
    }

    #[test]
    fn long_lines_are_cut() {
        let long = "1".repeat(1000);
        let d = unified_diff(b"1\n", format!("{long}\n").as_bytes(), 0, 10);
        assert!(d.contains(&format!("+{}... [700 more characters]\n", "1".repeat(300))), "{d}");
    }

    #[test]
    fn long_diffs_are_cut() {
        let exp: String = (0..100).map(|i| format!("{i}\n")).collect();
        let act: String = (0..100).map(|i| format!("x{i}\n")).collect();
        let d = unified_diff(exp.as_bytes(), act.as_bytes(), 3, 10);
        assert_eq!(d.lines().count(), 12, "{d}");
        assert!(d.ends_with("... diff cut here (190 more changed lines)\n"), "{d}");
    }

    #[test]
    fn huge_middles_fall_back_to_block_replacement() {
        let exp: String = (0..3000).map(|i| format!("{i}\n")).collect();
        let act: String = (0..3000).map(|i| format!("{}\n", i * 7)).collect();
        let d = unified_diff(exp.as_bytes(), act.as_bytes(), 1, 5);
        assert!(d.starts_with("@@ -1,"), "{d}");
        assert!(d.contains("-1\n"), "{d}");
    }
}
