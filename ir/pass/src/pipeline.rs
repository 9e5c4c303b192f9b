//! The textual pipeline grammar, shared by the build-time generator, the DFG tier and
//! `deegen-opt`:
//!
//! ```text
//! pipeline := element (',' element)*
//! element  := name ('<' param (';' param)* '>')? ('(' pipeline ')')?
//! param    := key ('=' value)?          value: any text without ';' or an unbalanced '>'
//! name,key := [A-Za-z0-9_.-]+
//! ```
//!
//! Whitespace between tokens is ignored. [`PipelineText`]'s `Display` prints the canonical form,
//! which parses back to the same pipeline.

use std::fmt;

/// One element of a pipeline: a pass or an adaptor with a nested pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineElement {
    pub name: String,
    pub params: Vec<(String, Option<String>)>,
    pub children: Option<Vec<PipelineElement>>,
}

/// A parsed pipeline, with the text it came from (for error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineText {
    pub source: String,
    pub elements: Vec<PipelineElement>,
}

/// Everything that can be wrong with a pipeline string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    #[error("invalid pipeline '{pipeline}': {message} at offset {offset}\n  {pipeline}\n  {caret}", caret = caret(*.offset))]
    Syntax { pipeline: String, offset: usize, message: String },
    #[error("unknown pass '{name}' in pipeline '{pipeline}'{hint}; `--list-passes` lists the {ir_kind} passes")]
    UnknownPass { name: String, pipeline: String, ir_kind: &'static str, hint: String },
    #[error("pass '{pass}': {message}")]
    BadParameter { pass: String, message: String },
}

fn caret(offset: usize) -> String {
    format!("{}^", " ".repeat(offset))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

const MAX_NESTING: usize = 64;

impl<'a> Parser<'a> {
    fn error(&self, message: impl Into<String>) -> PipelineError {
        PipelineError::Syntax { pipeline: self.text.to_owned(), offset: self.pos, message: message.into() }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn name(&mut self, what: &str) -> Result<String, PipelineError> {
        self.skip_ws();
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !is_name_char(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if start == self.pos {
            return Err(match self.peek() {
                None => self.error(format!("expected {what}, found end of pipeline")),
                Some(c) => self.error(format!("expected {what}, found '{c}'")),
            });
        }
        Ok(self.text[start..self.pos].to_owned())
    }

    fn value(&mut self) -> Result<String, PipelineError> {
        let start = self.pos;
        let mut angle = 0usize;
        while let Some(c) = self.peek() {
            match c {
                ';' if angle == 0 => break,
                '>' if angle == 0 => break,
                '<' => angle += 1,
                '>' => angle -= 1,
                _ => {}
            }
            self.pos += c.len_utf8();
        }
        Ok(self.text[start..self.pos].trim().to_owned())
    }

    fn params(&mut self) -> Result<Vec<(String, Option<String>)>, PipelineError> {
        let mut out = Vec::new();
        loop {
            let key = self.name("a parameter name")?;
            let value = if self.eat('=') { Some(self.value()?) } else { None };
            out.push((key, value));
            if self.eat(';') {
                continue;
            }
            if self.eat('>') {
                return Ok(out);
            }
            return Err(self.error("expected ';' or '>' in parameter list"));
        }
    }

    fn element(&mut self) -> Result<PipelineElement, PipelineError> {
        let name = self.name("a pass name")?;
        let params = if self.eat('<') { self.params()? } else { Vec::new() };
        let children = if self.eat('(') {
            self.depth += 1;
            if self.depth > MAX_NESTING {
                return Err(self.error("pipeline nested too deeply"));
            }
            let inner = self.sequence()?;
            if !self.eat(')') {
                return Err(self.error("expected ')' to close nested pipeline"));
            }
            self.depth -= 1;
            Some(inner)
        } else {
            None
        };
        Ok(PipelineElement { name, params, children })
    }

    fn sequence(&mut self) -> Result<Vec<PipelineElement>, PipelineError> {
        let mut out = vec![self.element()?];
        while self.eat(',') {
            out.push(self.element()?);
        }
        Ok(out)
    }
}

impl PipelineText {
    /// Parses a pipeline. The empty string is an error: an empty pipeline is almost always a
    /// mistake on the command line.
    pub fn parse(text: &str) -> Result<Self, PipelineError> {
        let mut p = Parser { text, pos: 0, depth: 0 };
        let elements = p.sequence()?;
        p.skip_ws();
        if let Some(c) = p.peek() {
            return Err(p.error(format!("unexpected '{c}'")));
        }
        Ok(Self { source: text.to_owned(), elements })
    }
}

impl fmt::Display for PipelineElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.params.is_empty() {
            f.write_str("<")?;
            for (i, (k, v)) in self.params.iter().enumerate() {
                if i > 0 {
                    f.write_str(";")?;
                }
                match v {
                    Some(v) => write!(f, "{k}={v}")?,
                    None => f.write_str(k)?,
                }
            }
            f.write_str(">")?;
        }
        if let Some(children) = &self.children {
            f.write_str("(")?;
            write_sequence(f, children)?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

fn write_sequence(f: &mut fmt::Formatter<'_>, elements: &[PipelineElement]) -> fmt::Result {
    for (i, e) in elements.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}

impl fmt::Display for PipelineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sequence(f, &self.elements)
    }
}
