//! Tests of the pipeline grammar, the registry, analysis caching and the manager, on a toy IR:
//! a list of integers.

use std::cell::RefCell;
use std::rc::Rc;

use deegen_pass::*;

#[derive(Debug, Clone, PartialEq)]
struct Numbers(Vec<i64>, Stage);

impl Numbers {
    fn raw(v: Vec<i64>) -> Self {
        Numbers(v, Stage::Raw)
    }
}

/// The toy IR's phases: `sort` moves a list from raw to sorted; `dedup` needs it sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Raw,
    Sorted,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Raw => "raw",
            Stage::Sorted => "sorted",
        })
    }
}

impl IrPhase for Stage {}

const ANY: &[Stage] = &[Stage::Raw, Stage::Sorted];

impl IrUnit for Numbers {
    const KIND: &'static str = "numbers";
    type Phase = Stage;
    fn phase(&self) -> Result<Stage, String> {
        Ok(self.1)
    }
    fn set_phase(&mut self, phase: Stage) {
        self.1 = phase;
    }
    fn print(&self) -> String {
        format!("{:?}\n", self.0)
    }
    fn verify(&self) -> Result<(), Vec<String>> {
        let bad: Vec<String> = self.0.iter().filter(|v| **v > 1000).map(|v| format!("{v} is too large")).collect();
        if bad.is_empty() {
            Ok(())
        } else {
            Err(bad)
        }
    }
}

struct Sum;
impl Analysis<Numbers> for Sum {
    type Result = i64;
    const NAME: &'static str = "sum";
    fn run(unit: &Numbers, _: &mut AnalysisManager<Numbers>) -> i64 {
        unit.0.iter().sum()
    }
}

/// Multiplies every element by `factor`.
struct Scale {
    factor: i64,
}
impl Pass<Numbers> for Scale {
    fn params(&self) -> String {
        format!("factor={}", self.factor)
    }
    fn run(&mut self, unit: &mut Numbers, _: &mut AnalysisManager<Numbers>) -> Result<PreservedAnalyses, PassError> {
        if self.factor == 1 {
            return Ok(PreservedAnalyses::all());
        }
        unit.0.iter_mut().for_each(|v| *v *= self.factor);
        Ok(PreservedAnalyses::none())
    }
}
impl RegisteredPass<Numbers> for Scale {
    const DESCRIPTOR: &'static PassDescriptor<Stage> =
        &PassDescriptor { name: "scale", description: "multiplies every number", params: "factor=N", required: true, runs_in: ANY, produces: None };
    fn from_params(p: &PassParams) -> Result<Self, PipelineError> {
        p.expect_only(&["factor"])?;
        Ok(Scale { factor: p.get_u64("factor", 2)? as i64 })
    }
}

/// Removes the first element above 1, once per run: needs a fixpoint to remove them all.
struct DropOneLarge;
impl Pass<Numbers> for DropOneLarge {
    fn run(&mut self, unit: &mut Numbers, am: &mut AnalysisManager<Numbers>) -> Result<PreservedAnalyses, PassError> {
        let _ = am.get::<Sum>(unit);
        match unit.0.iter().position(|v| *v > 1) {
            Some(i) => {
                unit.0.remove(i);
                Ok(PreservedAnalyses::none())
            }
            None => Ok(PreservedAnalyses::all()),
        }
    }
}
impl RegisteredPass<Numbers> for DropOneLarge {
    const DESCRIPTOR: &'static PassDescriptor<Stage> = &PassDescriptor {
        name: "drop-one-large",
        description: "removes the first number above 1",
        params: "",
        required: false,
        runs_in: ANY,
        produces: None,
    };
    fn from_params(p: &PassParams) -> Result<Self, PipelineError> {
        p.expect_only(&[])?;
        Ok(DropOneLarge)
    }
}

/// Reads the sum analysis and preserves everything.
struct ReadSum(Rc<RefCell<Vec<i64>>>);
impl Pass<Numbers> for ReadSum {
    fn run(&mut self, unit: &mut Numbers, am: &mut AnalysisManager<Numbers>) -> Result<PreservedAnalyses, PassError> {
        let s = *am.get::<Sum>(unit);
        self.0.borrow_mut().push(s);
        Ok(PreservedAnalyses::all())
    }
}

impl RegisteredPass<Numbers> for ReadSum {
    const DESCRIPTOR: &'static PassDescriptor<Stage> =
        &PassDescriptor { name: "read-sum", description: "reads the sum", params: "", required: true, runs_in: ANY, produces: None };
    fn from_params(_: &PassParams) -> Result<Self, PipelineError> {
        Err(PipelineError::BadParameter { pass: "read-sum".into(), message: "only built by tests".into() })
    }
}

/// Sorts: moves the unit to phase `sorted`.
struct Sort;
impl Pass<Numbers> for Sort {
    fn run(&mut self, unit: &mut Numbers, _: &mut AnalysisManager<Numbers>) -> Result<PreservedAnalyses, PassError> {
        unit.0.sort();
        Ok(PreservedAnalyses::none())
    }
}
impl RegisteredPass<Numbers> for Sort {
    const DESCRIPTOR: &'static PassDescriptor<Stage> = &PassDescriptor {
        name: "sort",
        description: "sorts the numbers",
        params: "",
        required: true,
        runs_in: &[Stage::Raw],
        produces: Some(Stage::Sorted),
    };
    fn from_params(p: &PassParams) -> Result<Self, PipelineError> {
        p.expect_only(&[])?;
        Ok(Sort)
    }
}

/// Removes adjacent duplicates: needs sorted input; fails on an empty list.
struct Dedup;
impl Pass<Numbers> for Dedup {
    fn run(&mut self, unit: &mut Numbers, _: &mut AnalysisManager<Numbers>) -> Result<PreservedAnalyses, PassError> {
        if unit.0.is_empty() {
            return Err(PassError::invalid_input("nothing to deduplicate"));
        }
        let before = unit.0.len();
        unit.0.dedup();
        Ok(if unit.0.len() == before { PreservedAnalyses::all() } else { PreservedAnalyses::none() })
    }
}
impl RegisteredPass<Numbers> for Dedup {
    const DESCRIPTOR: &'static PassDescriptor<Stage> = &PassDescriptor {
        name: "dedup",
        description: "removes adjacent duplicates",
        params: "",
        required: false,
        runs_in: &[Stage::Sorted],
        produces: None,
    };
    fn from_params(p: &PassParams) -> Result<Self, PipelineError> {
        p.expect_only(&[])?;
        Ok(Dedup)
    }
}

fn registry() -> PassRegistry<Numbers> {
    let mut r = PassRegistry::new();
    r.register::<Scale>().register::<DropOneLarge>().register::<Sort>().register::<Dedup>();
    r
}

#[test]
fn grammar_round_trips() {
    for text in ["a", "a,b,c", "a<k=v>", "a<k=v;flag>,b", "fixpoint(a,b<x=1>)", "fixpoint<max-iterations=3>(a,fixpoint(b))"] {
        let parsed = PipelineText::parse(text).unwrap();
        assert_eq!(parsed.to_string(), text);
        assert_eq!(PipelineText::parse(&parsed.to_string()).unwrap().elements, parsed.elements);
    }
    let spaced = PipelineText::parse(" a , b < k = v ; f > ").unwrap();
    assert_eq!(spaced.to_string(), "a,b<k=v;f>");
    let nested_angle = PipelineText::parse("a<ty=Vec<u8>>").unwrap();
    assert_eq!(nested_angle.elements[0].params, vec![("ty".to_owned(), Some("Vec<u8>".to_owned()))]);
}

#[test]
fn grammar_errors_name_the_offset() {
    let cases = [
        ("", "expected a pass name, found end of pipeline at offset 0"),
        ("a,", "expected a pass name, found end of pipeline at offset 2"),
        ("a,,b", "expected a pass name, found ',' at offset 2"),
        ("a<k", "expected ';' or '>' in parameter list at offset 3"),
        ("a<>", "expected a parameter name, found '>' at offset 2"),
        ("f(a", "expected ')' to close nested pipeline at offset 3"),
        ("a)", "unexpected ')' at offset 1"),
        ("a b", "unexpected 'b' at offset 2"),
    ];
    for (text, expected) in cases {
        let err = PipelineText::parse(text).unwrap_err().to_string();
        assert!(err.contains(expected), "{text:?}: got {err}");
    }
    let deep = format!("{}a{}", "f(".repeat(100), ")".repeat(100));
    assert!(PipelineText::parse(&deep).unwrap_err().to_string().contains("nested too deeply"));
}

#[test]
fn unknown_pass_and_bad_parameters_are_reported() {
    let r = registry();
    let e = r.parse_pipeline("scale,scael").unwrap_err().to_string();
    assert_eq!(e, "unknown pass 'scael' in pipeline 'scale,scael' (did you mean 'scale'?); `--list-passes` lists the numbers passes");
    let e = r.parse_pipeline("scale<factr=3>").unwrap_err().to_string();
    assert_eq!(e, "pass 'scale': unknown parameter 'factr' (expected one of: factor)");
    let e = r.parse_pipeline("scale<factor=x>").unwrap_err().to_string();
    assert_eq!(e, "pass 'scale': parameter 'factor' expects an integer, got 'x'");
    let e = r.parse_pipeline("scale(drop-one-large)").unwrap_err().to_string();
    assert!(e.contains("takes no nested pipeline"), "{e}");
    let e = r.parse_pipeline("fixpoint").unwrap_err().to_string();
    assert!(e.contains("needs a nested pipeline"), "{e}");
}

#[test]
fn runs_passes_and_prints_pipeline_back() {
    let r = registry();
    let mut pm = r.parse_pipeline("scale<factor=3>,fixpoint(drop-one-large)").unwrap();
    assert_eq!(pm.pipeline_text(), "scale<factor=3>,fixpoint<max-iterations=16>(drop-one-large)");
    let mut unit = Numbers::raw(vec![0, 1, 2]);
    let preserved = pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
    assert!(!preserved.are_all_preserved());
    assert_eq!(unit.0, vec![0]);
    // The printed pipeline builds the same passes.
    let mut again = r.parse_pipeline(&pm.pipeline_text()).unwrap();
    let mut unit2 = Numbers::raw(vec![0, 1, 2]);
    again.run(&mut unit2, &mut AnalysisManager::new()).unwrap();
    assert_eq!(unit2, unit);
}

#[test]
fn unchanged_run_preserves_all() {
    let mut pm = registry().parse_pipeline("scale<factor=1>").unwrap();
    let mut unit = Numbers::raw(vec![5]);
    assert!(pm.run(&mut unit, &mut AnalysisManager::new()).unwrap().are_all_preserved());
}

#[test]
fn analyses_are_cached_until_invalidated() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut pm = PassManager::new();
    pm.add(ReadSum(seen.clone())).add(ReadSum(seen.clone())).add(Scale { factor: 10 }).add(ReadSum(seen.clone()));
    let mut am = AnalysisManager::new();
    let mut unit = Numbers::raw(vec![1, 2]);
    pm.run(&mut unit, &mut am).unwrap();
    assert_eq!(*seen.borrow(), vec![3, 3, 30]);
    assert_eq!(am.computations(), 2, "the second read must hit the cache, the third must recompute");
    assert_eq!(am.cached::<Sum>(), Some(&30));
    am.invalidate(&PreservedAnalyses::none().preserve::<Numbers, Sum>());
    assert_eq!(am.cached::<Sum>(), Some(&30));
    am.invalidate(&PreservedAnalyses::none());
    assert_eq!(am.cached::<Sum>(), None);
}

#[test]
fn print_after_all_and_verify_each() {
    let out = Rc::new(RefCell::new(String::new()));
    let sink_out = out.clone();
    let mut pm = registry().parse_pipeline("scale<factor=2>,scale<factor=1000>").unwrap();
    pm.set_instrumentation(Instrumentation {
        print_after_all: true,
        verify_each: true,
        time_passes: true,
        opt_bisect_limit: None,
        sink: Some(Box::new(move |label, text| sink_out.borrow_mut().push_str(&format!("[{label}] {text}")))),
    });
    let err = pm.run(&mut Numbers::raw(vec![1]), &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(err.pass(), Some("scale"));
    assert!(matches!(&err, RunError::InvalidAfter { problems, .. } if problems == &["2000 is too large"]), "{err}");
    assert_eq!(*out.borrow(), "[input] [1]\n[after scale] [2]\n");
    assert_eq!(pm.timings().len(), 2);
}

#[test]
fn list_passes_is_sorted_and_complete() {
    let text = registry().describe();
    assert_eq!(
        text,
        "numbers passes:\n  dedup                                    removes adjacent duplicates\n  \
         drop-one-large                           removes the first number above 1\n  \
         fixpoint                                 fixpoint<max-iterations=N>(a,b,...): reruns the nested pipeline until it changes nothing\n  \
         scale<factor=N>                          multiplies every number\n  \
         sort                                     sorts the numbers\n"
    );
}

#[test]
fn wrong_phase_order_is_refused_before_anything_runs() {
    let r = registry();
    let mut unit = Numbers::raw(vec![3, 1, 3]);
    let err = r.parse_pipeline("scale,dedup,sort").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pass 'dedup' runs on numbers IR in phase 'sorted', but at this point of the pipeline the IR is in phase 'raw'; run 'sort' before it"
    );
    assert_eq!(unit.0, vec![3, 1, 3], "nothing may run when the order is wrong");
    let err = r.parse_pipeline("sort,sort").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pass 'sort' runs on numbers IR in phase 'raw', but at this point of the pipeline the IR is in phase 'sorted'; it must run before 'sort'"
    );
    // The right order runs, and the unit records the phase the pipeline produced.
    r.parse_pipeline("sort,dedup").unwrap().run(&mut unit, &mut AnalysisManager::new()).unwrap();
    assert_eq!(unit, Numbers(vec![1, 3], Stage::Sorted));
    // A fixpoint may not move the phase.
    let err = r.parse_pipeline("fixpoint(sort)").unwrap().check_phases(Stage::Raw).unwrap_err();
    assert!(matches!(err, PhaseError::FixpointChangesPhase { .. }), "{err}");
}

#[test]
fn pass_errors_name_the_pass() {
    let err = registry().parse_pipeline("sort,dedup").unwrap().run(&mut Numbers::raw(vec![]), &mut AnalysisManager::new()).unwrap_err();
    assert_eq!(err.to_string(), "pass 'dedup': nothing to deduplicate");
    assert_eq!(err, RunError::Pass { pass: "dedup", error: PassError::invalid_input("nothing to deduplicate") });
}

#[test]
fn opt_bisect_limit_skips_only_optimisations_after_the_limit() {
    let r = registry();
    let run = |limit| {
        let mut pm = r.parse_pipeline("scale<factor=2>,drop-one-large,sort,dedup,drop-one-large").unwrap();
        pm.instrumentation_mut().opt_bisect_limit = limit;
        let mut unit = Numbers::raw(vec![1, 1, 5, 0]);
        pm.run(&mut unit, &mut AnalysisManager::new()).unwrap();
        (unit.0, pm.bisect_log().iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    // Required passes (scale, sort) always run; the optimisations are counted from 1.
    let (numbers, log) = run(Some(0));
    assert_eq!(numbers, vec![0, 2, 2, 10]);
    assert_eq!(
        log,
        ["BISECT: NOT running pass (1) drop-one-large", "BISECT: NOT running pass (2) dedup", "BISECT: NOT running pass (3) drop-one-large"]
    );
    let (numbers, log) = run(Some(2));
    assert_eq!(numbers, vec![0, 2, 10]);
    assert_eq!(log[1], "BISECT: running pass (2) dedup");
    assert_eq!(log[2], "BISECT: NOT running pass (3) drop-one-large");
    let (numbers, log) = run(None);
    assert_eq!(numbers, vec![0, 10]);
    assert!(log.is_empty());
}

#[test]
fn markdown_table_lists_phases_and_kinds() {
    let table = registry().markdown_table();
    assert!(table.contains("| [`sort`](sort/README.md) | `raw` | `sorted` | required | sorts the numbers |"), "{table}");
    assert!(table.contains("| [`dedup`](dedup/README.md) | `sorted` | - | optimisation | removes adjacent duplicates |"), "{table}");
}
