//! The one table of passes per IR kind, from which pipelines are built, `--list-passes` is
//! printed, and pipeline errors are worded.

use crate::pipeline::{PipelineElement, PipelineError, PipelineText};
use crate::{IrUnit, Pass, PassDescriptor, PassManager};

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
                let expected = if known.is_empty() { "it takes none".to_owned() } else { format!("expected one of: {}", known.join(", ")) };
                return Err(PipelineError::BadParameter { pass: self.pass.clone(), message: format!("unknown parameter '{k}' ({expected})") });
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A pass type that can be built from pipeline text.
pub trait RegisteredPass<U: IrUnit + ?Sized>: Pass<U> + Sized + 'static {
    /// The pass's one declaration.
    const DESCRIPTOR: &'static PassDescriptor<U::Phase>;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError>;
}

/// Builds a pass from its parameters.
type PassBuilder<U> = fn(&PassParams) -> Result<Box<dyn Pass<U>>, PipelineError>;

/// One registry row.
struct Entry<U: IrUnit + ?Sized> {
    descriptor: &'static PassDescriptor<U::Phase>,
    build: PassBuilder<U>,
}

fn build_boxed<U: IrUnit + ?Sized, P: RegisteredPass<U>>(params: &PassParams) -> Result<Box<dyn Pass<U>>, PipelineError> {
    Ok(Box::new(P::from_params(params)?))
}

/// The passes of one IR kind. Built-in pipeline adaptors (`fixpoint`) are handled here too.
pub struct PassRegistry<U: IrUnit + ?Sized> {
    entries: Vec<Entry<U>>,
}

impl<U: IrUnit + ?Sized> std::fmt::Debug for PassRegistry<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.entries.iter().map(|e| e.descriptor.name).collect();
        f.debug_struct("PassRegistry").field("ir_kind", &U::KIND).field("passes", &names).finish()
    }
}

impl<U: IrUnit + ?Sized> Default for PassRegistry<U> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

/// Names the pipeline grammar reserves for adaptors.
pub const ADAPTORS: &[(&str, &str)] = &[("fixpoint", "fixpoint<max-iterations=N>(a,b,...): reruns the nested pipeline until it changes nothing")];

impl<U: IrUnit + ?Sized> PassRegistry<U> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds pass type `P`. Registering a name twice, or a pass that may be skipped but moves
    /// the phase forward, is a programming error.
    pub fn register<P: RegisteredPass<U>>(&mut self) -> &mut Self {
        let d = P::DESCRIPTOR;
        assert!(self.lookup(d.name).is_none(), "pass '{}' registered twice", d.name);
        assert!(ADAPTORS.iter().all(|(n, _)| *n != d.name), "pass name '{}' is reserved", d.name);
        assert!(d.required || d.produces.is_none(), "pass '{}' produces a phase, so it cannot be optional", d.name);
        assert!(!d.runs_in.is_empty(), "pass '{}' runs in no phase", d.name);
        self.entries.push(Entry { descriptor: d, build: build_boxed::<U, P> });
        self
    }

    /// Every registered pass, in registration order.
    pub fn passes(&self) -> impl Iterator<Item = &'static PassDescriptor<U::Phase>> + '_ {
        self.entries.iter().map(|e| e.descriptor)
    }

    pub fn lookup(&self, name: &str) -> Option<&'static PassDescriptor<U::Phase>> {
        self.entry(name).map(|e| e.descriptor)
    }

    fn entry(&self, name: &str) -> Option<&Entry<U>> {
        self.entries.iter().find(|e| e.descriptor.name == name)
    }

    /// The `--list-passes` text: one line per pass, sorted by name.
    pub fn describe(&self) -> String {
        let mut rows: Vec<_> = self.passes().map(|d| (d.name, d.params, d.description)).collect();
        rows.extend(ADAPTORS.iter().map(|(n, d)| (*n, "", *d)));
        rows.sort_by_key(|r| r.0);
        let mut out = format!("{} passes:\n", U::KIND);
        for (name, params, desc) in rows {
            let head = if params.is_empty() { name.to_owned() } else { format!("{name}<{params}>") };
            out.push_str(&format!("  {head:<40} {desc}\n"));
        }
        out
    }

    /// The pass table of the READMEs (Markdown), in registration order: the crate of pass `x`
    /// is `passes/x`.
    pub fn markdown_table(&self) -> String {
        let mut out = String::from("| pass | runs in | produces | kind | what it does |\n| --- | --- | --- | --- | --- |\n");
        for d in self.passes() {
            let runs_in: Vec<String> = d.runs_in.iter().map(|p| format!("`{p}`")).collect();
            let produces = d.produces.map(|p| format!("`{p}`")).unwrap_or_else(|| "-".into());
            let head = if d.params.is_empty() { format!("`{}`", d.name) } else { format!("`{}<{}>`", d.name, d.params) };
            let kind = if d.required { "required" } else { "optimisation" };
            out.push_str(&format!(
                "| [{head}]({name}/README.md) | {} | {produces} | {kind} | {} |\n",
                runs_in.join(", "),
                d.description,
                name = d.name
            ));
        }
        out
    }

    /// Parses and builds a pipeline in one step.
    pub fn parse_pipeline(&self, text: &str) -> Result<PassManager<U>, PipelineError> {
        let parsed = PipelineText::parse(text)?;
        self.build(&parsed)
    }

    /// Builds the pass manager for an already parsed pipeline. The manager knows which pass
    /// produces each phase, so its phase errors can name the missing pass.
    pub fn build(&self, pipeline: &PipelineText) -> Result<PassManager<U>, PipelineError> {
        let mut pm = PassManager::new();
        for element in &pipeline.elements {
            self.build_element(element, pipeline, &mut pm)?;
        }
        pm.set_phase_producers(self.passes().filter_map(|d| Some((d.produces?, d.name))).collect());
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
        let Some(entry) = self.entry(&e.name) else {
            let hint = self.closest_name(&e.name).map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
            return Err(PipelineError::UnknownPass { name: e.name.clone(), pipeline: whole.source.clone(), ir_kind: U::KIND, hint });
        };
        if e.children.is_some() {
            return Err(PipelineError::BadParameter {
                pass: e.name.clone(),
                message: format!("'{}' is a pass, not an adaptor: it takes no nested pipeline", e.name),
            });
        }
        pm.add_boxed(entry.descriptor, (entry.build)(&params)?);
        Ok(())
    }

    fn closest_name(&self, name: &str) -> Option<&'static str> {
        self.passes().map(|p| (edit_distance(p.name, name), p.name)).filter(|(d, n)| *d <= 2.max(n.len() / 4)).min().map(|(_, n)| n)
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
