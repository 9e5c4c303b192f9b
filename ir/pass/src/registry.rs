//! The one table of passes per IR kind, from which pipelines are built, `--list-passes` is
//! printed, and pipeline errors are worded.

use crate::pipeline::{PipelineElement, PipelineError, PipelineText};
use crate::{Pass, PassManager};

/// Parameters of one pipeline element (`name<k=v;flag>`), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassParams {
    pass: String,
    entries: Vec<(String, Option<String>)>,
}

impl PassParams {
    pub fn new(pass: &str, entries: Vec<(String, Option<String>)>) -> Self {
        Self { pass: pass.to_owned(), entries }
    }

    /// The value of `key=value`, or `None` when absent.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
    }

    /// Whether a bare `flag` (or `flag=true`) is present.
    pub fn flag(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, v)| k == key && matches!(v.as_deref(), None | Some("true")))
    }

    /// Parses `key=<integer>`, with `default` when absent.
    pub fn get_u64(&self, key: &str, default: u64) -> Result<u64, PipelineError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| PipelineError::BadParameter {
                pass: self.pass.clone(),
                message: format!("parameter '{key}' expects an integer, got '{v}'"),
            }),
        }
    }

    /// Rejects any parameter not in `known`, so a typo never passes silently.
    pub fn expect_only(&self, known: &[&str]) -> Result<(), PipelineError> {
        for (k, _) in &self.entries {
            if !known.contains(&k.as_str()) {
                let expected =
                    if known.is_empty() { "it takes none".to_owned() } else { format!("expected one of: {}", known.join(", ")) };
                return Err(PipelineError::BadParameter {
                    pass: self.pass.clone(),
                    message: format!("unknown parameter '{k}' ({expected})"),
                });
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A pass type that can be built from pipeline text.
pub trait RegisteredPass<U: ?Sized>: Pass<U> + Sized + 'static {
    const NAME: &'static str;
    /// One line for `--list-passes`.
    const DESCRIPTION: &'static str;
    /// The accepted parameters, for `--list-passes` (e.g. `"max-iterations=N"`); empty if none.
    const PARAMS: &'static str = "";
    fn from_params(params: &PassParams) -> Result<Self, PipelineError>;
}

/// One registry row.
pub struct PassInfo<U: ?Sized> {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static str,
    build: PassBuilder<U>,
}

/// Builds a pass from its parameters.
type PassBuilder<U> = fn(&PassParams) -> Result<Box<dyn Pass<U>>, PipelineError>;

impl<U: ?Sized> std::fmt::Debug for PassInfo<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassInfo").field("name", &self.name).finish()
    }
}

fn build_boxed<U: ?Sized, P: RegisteredPass<U>>(params: &PassParams) -> Result<Box<dyn Pass<U>>, PipelineError> {
    Ok(Box::new(P::from_params(params)?))
}

/// The passes of one IR kind. Built-in pipeline adaptors (`fixpoint`) are handled here too.
pub struct PassRegistry<U: ?Sized> {
    ir_kind: &'static str,
    passes: Vec<PassInfo<U>>,
}

impl<U: ?Sized> std::fmt::Debug for PassRegistry<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassRegistry").field("ir_kind", &self.ir_kind).field("passes", &self.passes).finish()
    }
}

/// Names the pipeline grammar reserves for adaptors.
pub const ADAPTORS: &[(&str, &str)] =
    &[("fixpoint", "fixpoint<max-iterations=N>(a,b,...): reruns the nested pipeline until it changes nothing")];

impl<U: ?Sized> PassRegistry<U> {
    pub fn new(ir_kind: &'static str) -> Self {
        Self { ir_kind, passes: Vec::new() }
    }

    /// Adds pass type `P`. Registering a name twice is a programming error.
    pub fn register<P: RegisteredPass<U>>(&mut self) -> &mut Self {
        assert!(self.lookup(P::NAME).is_none(), "pass '{}' registered twice", P::NAME);
        assert!(ADAPTORS.iter().all(|(n, _)| *n != P::NAME), "pass name '{}' is reserved", P::NAME);
        self.passes.push(PassInfo {
            name: P::NAME,
            description: P::DESCRIPTION,
            params: P::PARAMS,
            build: build_boxed::<U, P>,
        });
        self
    }

    pub fn ir_kind(&self) -> &'static str {
        self.ir_kind
    }

    pub fn passes(&self) -> &[PassInfo<U>] {
        &self.passes
    }

    pub fn lookup(&self, name: &str) -> Option<&PassInfo<U>> {
        self.passes.iter().find(|p| p.name == name)
    }

    /// The `--list-passes` text: one line per pass, sorted by name.
    pub fn describe(&self) -> String {
        let mut rows: Vec<_> = self.passes.iter().map(|p| (p.name, p.params, p.description)).collect();
        rows.extend(ADAPTORS.iter().map(|(n, d)| (*n, "", *d)));
        rows.sort_by_key(|r| r.0);
        let mut out = format!("{} passes:\n", self.ir_kind);
        for (name, params, desc) in rows {
            let head = if params.is_empty() { name.to_owned() } else { format!("{name}<{params}>") };
            out.push_str(&format!("  {head:<40} {desc}\n"));
        }
        out
    }

    /// Parses and builds a pipeline in one step.
    pub fn parse_pipeline(&self, text: &str) -> Result<PassManager<U>, PipelineError> {
        let parsed = PipelineText::parse(text)?;
        self.build(&parsed)
    }

    /// Builds the pass manager for an already parsed pipeline.
    pub fn build(&self, pipeline: &PipelineText) -> Result<PassManager<U>, PipelineError> {
        let mut pm = PassManager::new();
        for element in &pipeline.elements {
            self.build_element(element, pipeline, &mut pm)?;
        }
        Ok(pm)
    }

    fn build_element(&self, e: &PipelineElement, whole: &PipelineText, pm: &mut PassManager<U>) -> Result<(), PipelineError> {
        let params = PassParams::new(&e.name, e.params.clone());
        if e.name == "fixpoint" {
            params.expect_only(&["max-iterations"])?;
            let max = params.get_u64("max-iterations", 16)?;
            let Some(children) = &e.children else {
                return Err(PipelineError::BadParameter {
                    pass: e.name.clone(),
                    message: "'fixpoint' needs a nested pipeline: fixpoint(a,b)".into(),
                });
            };
            let mut inner = PassManager::new();
            for c in children {
                self.build_element(c, whole, &mut inner)?;
            }
            pm.add_fixpoint(inner, max as usize);
            return Ok(());
        }
        let Some(info) = self.lookup(&e.name) else {
            let hint = self.closest_name(&e.name).map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
            return Err(PipelineError::UnknownPass {
                name: e.name.clone(),
                pipeline: whole.source.clone(),
                ir_kind: self.ir_kind,
                hint,
            });
        };
        if e.children.is_some() {
            return Err(PipelineError::BadParameter {
                pass: e.name.clone(),
                message: format!("'{}' is a pass, not an adaptor: it takes no nested pipeline", e.name),
            });
        }
        pm.add_boxed((info.build)(&params)?);
        Ok(())
    }

    fn closest_name(&self, name: &str) -> Option<&'static str> {
        self.passes
            .iter()
            .map(|p| (edit_distance(p.name, name), p.name))
            .filter(|(d, n)| *d <= 2.max(n.len() / 4))
            .min()
            .map(|(_, n)| n)
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
