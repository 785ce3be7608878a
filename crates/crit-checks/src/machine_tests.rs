use std::path::PathBuf;

use super::*;
use crate::check::{FixAction, MatchRule, SourceKind};

#[derive(Default)]
struct Mem {
    states: Vec<State>,
    plans: Vec<String>,
}

impl Store for Mem {
    fn save_state(&mut self, state: &State) -> Result<(), CheckError> {
        self.states.push(state.clone());
        Ok(())
    }
    fn save_plan(&mut self, plan: &str) -> Result<(), CheckError> {
        self.plans.push(plan.to_string());
        Ok(())
    }
}

/// Answers from a script; `None` once it runs out.
struct Script(Vec<Answer>, Vec<Question>);

impl Asker for Script {
    fn ask(&mut self, q: &Question) -> Option<Answer> {
        self.1.push(q.clone());
        if self.0.is_empty() {
            None
        } else {
            Some(self.0.remove(0))
        }
    }
}

fn check(id: &str, pattern: &str, fix: Option<FixAction>) -> Check {
    Check {
        id: id.into(),
        pattern: pattern.into(),
        match_rule: MatchRule::Literal,
        fix,
        reason: format!("{id} is bad"),
        reject_if_persists: false,
        source: SourceKind::SessionChecks,
        origin: PathBuf::from("checks.yaml"),
    }
}

fn replace(with: &str) -> Option<FixAction> {
    Some(FixAction::Replace { with: with.into() })
}

fn go(
    checks: Vec<Check>,
    plan: &str,
    state: State,
    answers: Vec<Answer>,
) -> (Run, Mem, Vec<Question>) {
    let set = CheckSet::compile(checks).unwrap();
    let mut mem = Mem::default();
    let mut script = Script(answers, Vec::new());
    let run = run(
        &set,
        plan.to_string(),
        state,
        "Senior security engineer",
        Limits::default(),
        &mut mem,
        &mut script,
    )
    .unwrap();
    (run, mem, script.1)
}

use Step::*;

#[test]
fn checking_to_approved_when_all_pass() {
    let (r, mem, _) = go(
        vec![check("no_eval", "eval(", None)],
        "A clean plan.\n",
        State::default(),
        vec![],
    );
    assert_eq!(r.outcome, Outcome::Approved);
    assert_eq!(r.steps, vec![Checking, Approved]);
    assert!(mem.states.is_empty() && mem.plans.is_empty());
}

#[test]
fn checking_to_fixing_and_back_then_approved() {
    let (r, mem, _) = go(
        vec![check("no_eval", "eval", replace("JSON.parse"))],
        "x\nUse eval here.\n",
        State::default(),
        vec![],
    );
    assert_eq!(r.outcome, Outcome::Approved);
    assert_eq!(r.steps, vec![Checking, Fixing, Checking, Approved]);
    assert_eq!(r.plan, "x\nUse JSON.parse here.\n");
    assert_eq!(r.state.edits, 1);
    assert_eq!(r.state.retries_of("no_eval"), 1);
    assert_eq!(
        r.state.history,
        vec![HistoryEntry {
            check: "no_eval".into(),
            fix: "eval → JSON.parse".into(),
            line: 2
        }]
    );
    // state.yaml is written before plan.md (seed FIXING steps 3 and 4).
    assert_eq!(mem.states.len(), 1);
    assert_eq!(mem.plans, vec![r.plan.clone()]);
}

#[test]
fn stop_on_first_failure_in_check_order() {
    let checks = vec![
        check("first", "bbb", replace("B")),
        check("second", "aaa", replace("A")),
    ];
    let (r, _, _) = go(checks, "aaa bbb\n", State::default(), vec![]);
    let order: Vec<&str> = r.state.history.iter().map(|h| h.check.as_str()).collect();
    assert_eq!(order, vec!["first", "second"]);
}

#[test]
fn no_fix_goes_to_asking() {
    let (r, mem, qs) = go(
        vec![check("judge", "ambiguous thing", None)],
        "an ambiguous thing\n",
        State::default(),
        vec![],
    );
    assert_eq!(r.steps, vec![Checking, Asking, Incomplete]);
    let Outcome::Incomplete(super::Incomplete::AwaitingAnswer(q)) = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert_eq!(
        q.text,
        "[Checks for Senior security engineer]: Pattern 'ambiguous thing' found. judge is bad. It appears on line 1: \"an ambiguous thing\"."
    );
    assert_eq!(q.options[0].label, "Approve this instance");
    assert_eq!(q.options[1].label, "Abort review");
    assert_eq!(qs.len(), 1);
    assert!(mem.states.is_empty());
    assert_eq!(r.unresolved[0].check_id, "judge");
}

#[test]
fn asking_approve_skips_the_check_from_then_on() {
    let (r, mem, _) = go(
        vec![check("judge", "thing", None)],
        "thing\n",
        State::default(),
        vec![Answer::Approve],
    );
    assert_eq!(r.outcome, Outcome::Approved);
    assert_eq!(r.steps, vec![Checking, Asking, Checking, Approved]);
    assert_eq!(r.state.approved, vec!["judge".to_string()]);
    assert_eq!(mem.states.len(), 1, "ASKING writes state.yaml");
}

#[test]
fn asking_abort_is_incomplete() {
    let (r, _, _) = go(
        vec![check("judge", "thing", None)],
        "thing\n",
        State::default(),
        vec![Answer::Abort],
    );
    assert_eq!(
        r.outcome,
        Outcome::Incomplete(super::Incomplete::UserAborted)
    );
    assert_eq!(r.steps, vec![Checking, Asking, Incomplete]);
}

#[test]
fn asking_free_text_replaces_the_matched_line() {
    let (r, mem, _) = go(
        vec![check("judge", "thing", None)],
        "# Plan\na thing here\nlast\n",
        State::default(),
        vec![Answer::Replace("a widget here".into())],
    );
    assert_eq!(r.outcome, Outcome::Approved);
    assert_eq!(r.plan, "# Plan\na widget here\nlast\n");
    assert_eq!(mem.plans.len(), 1);
    assert_eq!(
        r.state.history[0].fix,
        "a thing here → a widget here (user)"
    );
}

#[test]
fn the_edit_limit_holds_across_runs() {
    // A later run starts with the edits an earlier one made.
    let start = State {
        edits: 10,
        ..State::default()
    };
    let fix = Some(FixAction::Replace { with: "x".into() });
    let (r, mem, _) = go(
        vec![check("c", "thing", fix)],
        "a thing\n",
        start.clone(),
        vec![],
    );
    assert_eq!(r.outcome, Outcome::Incomplete(super::Incomplete::EditLimit));
    assert!(mem.plans.is_empty(), "no eleventh edit");
    assert_eq!(r.state.edits, 10);
    // Free text is an edit too; approving is not.
    let (r, mem, _) = go(
        vec![check("c", "thing", None)],
        "a thing\n",
        start.clone(),
        vec![Answer::Replace("other".into())],
    );
    assert_eq!(r.outcome, Outcome::Incomplete(super::Incomplete::EditLimit));
    assert!(mem.plans.is_empty());
    let (r, _, _) = go(
        vec![check("c", "thing", None)],
        "a thing\n",
        start,
        vec![Answer::Approve],
    );
    assert_eq!(r.outcome, Outcome::Approved);
}

#[test]
fn three_retries_then_asking() {
    // The replacement keeps the pattern, so the fix never sticks.
    let (r, _, qs) = go(
        vec![check("loop", "log", replace("logger"))],
        "log\n",
        State::default(),
        vec![],
    );
    assert_eq!(
        r.steps,
        vec![
            Checking, Fixing, Checking, Fixing, Checking, Fixing, Checking, Asking, Incomplete
        ]
    );
    assert_eq!(r.state.retries_of("loop"), 3);
    assert_eq!(qs.len(), 1);
}

#[test]
fn retries_carried_in_state_count() {
    let mut state = State::default();
    state.retries.insert("loop".into(), 3);
    let (r, _, _) = go(
        vec![check("loop", "log", replace("x"))],
        "log\n",
        state,
        vec![],
    );
    assert_eq!(r.steps, vec![Checking, Asking, Incomplete]);
}

#[test]
fn reject_if_persists_on_reappearance() {
    let mut c = check("no_eval", "eval", replace("evaluate"));
    c.reject_if_persists = true;
    let (r, _, _) = go(vec![c.clone()], "eval\n", State::default(), vec![]);
    assert_eq!(r.steps, vec![Checking, Fixing, Checking, Rejected]);
    let Outcome::Rejected { check, .. } = &r.outcome else {
        panic!()
    };
    assert_eq!(check, "no_eval");
    // A first hit with retries 0 is fixed, not rejected.
    let mut c2 = c;
    c2.fix = replace("JSON.parse");
    let (r, _, _) = go(vec![c2], "eval\n", State::default(), vec![]);
    assert_eq!(r.outcome, Outcome::Approved);
}

#[test]
fn ten_edits_is_incomplete() {
    let checks: Vec<Check> = (0..12)
        .map(|i| {
            check(
                &format!("c{i}"),
                &format!("bad{i}!"),
                replace(&format!("good{i}")),
            )
        })
        .collect();
    let plan: String = (0..12).map(|i| format!("bad{i}! ")).collect();
    let (r, mem, _) = go(checks, &plan, State::default(), vec![]);
    assert_eq!(r.outcome, Outcome::Incomplete(super::Incomplete::EditLimit));
    assert_eq!(r.state.edits, 10);
    assert_eq!(mem.plans.len(), 10);
    let left: Vec<&str> = r.unresolved.iter().map(|u| u.check_id.as_str()).collect();
    assert_eq!(left, vec!["c10", "c11"]);
}

#[test]
fn edits_carried_in_state_count_toward_the_limit() {
    let state = State {
        edits: 9,
        ..State::default()
    };
    let (r, _, _) = go(
        vec![check("a", "x", replace("y")), check("b", "z", replace("w"))],
        "x z\n",
        state,
        vec![],
    );
    assert_eq!(r.outcome, Outcome::Incomplete(super::Incomplete::EditLimit));
    assert_eq!(r.state.edits, 10);
}

#[test]
fn answers_parse() {
    assert_eq!(Answer::parse("approve"), Answer::Approve);
    assert_eq!(Answer::parse("Approve this instance"), Answer::Approve);
    assert_eq!(Answer::parse("ABORT"), Answer::Abort);
    assert_eq!(
        Answer::parse("JSON.parse"),
        Answer::Replace("JSON.parse".into())
    );
}
