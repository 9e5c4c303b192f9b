//! Per-file settings carried in a test's leading comment block.
//!
//! Format: one setting per line, in the run of `--` line comments (and blank lines) at the
//! top of the file (an optional `#!` first line is skipped):
//!
//! ```lua
//! -- Checks that command-line arguments reach the script.
//! -- ljr-test: args=a b c
//! -- ljr-test: stdin=input.txt
//! -- ljr-test: timeout=120
//! ```
//!
//! | key       | value                                                                 |
//! |-----------|-----------------------------------------------------------------------|
//! | `args`    | whitespace-separated words passed after the script name               |
//! | `stdin`   | file (relative to the test's directory) fed to stdin; default: none   |
//! | `timeout` | seconds before the run is killed and counted as failed; default 60    |
//!
//! Unknown keys, repeated keys and `ljr-test:` lines after the leading block are errors:
//! a misspelt or misplaced setting must fail the test, not be silently ignored.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

/// The marker that starts a settings line (after `--` and optional spaces).
pub const MARKER: &str = "ljr-test:";

/// Settings parsed from a test file's header.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestSettings {
    /// Arguments after the script name.
    pub args: Vec<String>,
    /// Stdin file, relative to the test's directory.
    pub stdin: Option<PathBuf>,
    /// Overrides the runner's default timeout.
    pub timeout: Option<Duration>,
}

/// A malformed header; `line` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct HeaderError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// If `line` is a settings line, returns the text after the marker.
fn setting_text(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix("--")?.trim_start().strip_prefix(MARKER)
}

/// Parses the settings of a test file.
pub fn parse(source: &str) -> Result<TestSettings, HeaderError> {
    let mut settings = TestSettings::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut in_header = true;
    for (idx, line) in source.lines().enumerate() {
        let lineno = idx + 1;
        let err = |message: String| HeaderError { line: lineno, message };
        if idx == 0 && line.starts_with('#') {
            continue;
        }
        let trimmed = line.trim();
        // A long comment (`--[[`) ends the header: its inner lines are not `--` lines, and
        // treating the opener as a header line would make the block's end ambiguous.
        if in_header && !(trimmed.is_empty() || (trimmed.starts_with("--") && !is_long_comment(trimmed))) {
            in_header = false;
        }
        let Some(text) = setting_text(line) else {
            continue;
        };
        if !in_header {
            return Err(err(format!("`{MARKER}` settings must be in the file's leading `--` comment lines")));
        }
        let text = text.trim();
        let (key, value) = text.split_once('=').ok_or_else(|| err(format!("expected `{MARKER} key=value`, found `{text}`")))?;
        let (key, value) = (key.trim(), value.trim());
        if seen.contains(&key) {
            return Err(err(format!("setting `{key}` given twice")));
        }
        match key {
            "args" => settings.args = value.split_whitespace().map(str::to_owned).collect(),
            "stdin" => {
                if value.is_empty() {
                    return Err(err("`stdin=` needs a file name".into()));
                }
                settings.stdin = Some(PathBuf::from(value));
            }
            "timeout" => {
                let secs: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| err(format!("`timeout=` needs a positive number of seconds, found `{value}`")))?;
                settings.timeout = Some(Duration::from_secs_f64(secs));
            }
            _ => return Err(err(format!("unknown setting `{key}` (known: args, stdin, timeout)"))),
        }
        seen.push(key);
    }
    Ok(settings)
}

/// Whether a trimmed `--` line opens a long comment: `--[`, any number of `=`, then `[`.
fn is_long_comment(trimmed: &str) -> bool {
    trimmed.strip_prefix("--[").is_some_and(|rest| rest.trim_start_matches('=').starts_with('['))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_header_gives_defaults() {
        assert_eq!(parse("print(1)\n").unwrap(), TestSettings::default());
        assert_eq!(parse("").unwrap(), TestSettings::default());
    }

    #[test]
    fn all_settings() {
        let src = "#!/usr/bin/env lua\n-- A test.\n\n-- ljr-test: args=a  b c\n--ljr-test: stdin = in.txt\n-- ljr-test: timeout=2.5\nprint(1)\n";
        let s = parse(src).unwrap();
        assert_eq!(s.args, ["a", "b", "c"]);
        assert_eq!(s.stdin, Some(PathBuf::from("in.txt")));
        assert_eq!(s.timeout, Some(Duration::from_millis(2500)));
    }

    #[test]
    fn setting_after_code_is_rejected() {
        let err = parse("print(1)\n-- ljr-test: args=x\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("leading"), "{err}");
    }

    #[test]
    fn long_comment_ends_the_header() {
        let err = parse("--[[ doc\n]]\n-- ljr-test: args=x\n").unwrap_err();
        assert_eq!(err.line, 3);
        let err = parse("--[==[ doc\n]==]\n-- ljr-test: args=x\n").unwrap_err();
        assert_eq!(err.line, 3);
        // `--[` without a second bracket is an ordinary line comment.
        assert_eq!(parse("--[ not long\n-- ljr-test: args=x\n").unwrap().args, ["x"]);
    }

    #[test]
    fn bad_settings_are_errors() {
        assert!(parse("-- ljr-test: arg=x\n").unwrap_err().message.contains("unknown setting"));
        assert!(parse("-- ljr-test: args\n").unwrap_err().message.contains("key=value"));
        assert!(parse("-- ljr-test: args=a\n-- ljr-test: args=b\n").unwrap_err().message.contains("twice"));
        assert!(parse("-- ljr-test: timeout=0\n").is_err());
        assert!(parse("-- ljr-test: timeout=soon\n").is_err());
        assert!(parse("-- ljr-test: stdin=\n").is_err());
    }

    #[test]
    fn empty_args_are_allowed() {
        assert!(parse("-- ljr-test: args=\n").unwrap().args.is_empty());
    }
}
