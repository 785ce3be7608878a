//! The prompt editor: priority, conflicts, dedupe, "no changes", where each op
//! lands in the text, and (a property) that input order never changes the output.

use crit_prompt::critique::{Critique, Finding, Op, OpKind, Rules, Severity, Target};
use crit_prompt::editor::{Change, EditorError, EditorInput, edit};
use crit_prompt::reviewers;
use proptest::prelude::*;

fn order() -> Vec<String> {
    [
        "security",
        "testing",
        "domain_sme",
        "documentation",
        "frontend_ux",
        "clarity",
    ]
    .map(String::from)
    .to_vec()
}

fn rules() -> Vec<Rules> {
    reviewers::builtin_rules()
}

fn op(op: OpKind, target: Target, value: &str) -> Op {
    Op {
        op,
        target,
        value: value.into(),
        original: None,
    }
}

fn finding(id: &str, severity: Severity, evidence: &str, ops: Vec<Op>) -> Finding {
    Finding {
        id: id.into(),
        severity,
        confidence: 0.8,
        issue: format!("issue {id}"),
        evidence: evidence.into(),
        suggested_ops: ops,
    }
}

fn critique(reviewer: &str, findings: Vec<Finding>) -> Critique {
    Critique {
        reviewer_role: reviewer.into(),
        severity_max: findings
            .iter()
            .map(|f| f.severity)
            .min()
            .unwrap_or(Severity::Nit),
        confidence: 0.8,
        no_issues: findings.is_empty(),
        findings,
    }
}

fn run(prompt: &str, critiques: &[Critique]) -> crit_prompt::editor::Edit {
    let rules = rules();
    let order = order();
    edit(&EditorInput {
        prompt,
        critiques,
        rules: &rules,
        priority_order: &order,
    })
    .unwrap()
}

const VAGUE: &str = "optimize the settings page\n";

/// The issue's example: four reviewers, one change each.
fn four() -> Vec<Critique> {
    vec![
        critique(
            "domain_sme",
            vec![finding(
                "SME-1",
                Severity::Major,
                "settings page",
                vec![op(
                    OpKind::AddConstraint,
                    Target::Constraints,
                    "Follow the existing functional style in src/: pure functions, named exports, no classes",
                )],
            )],
        ),
        critique(
            "security",
            vec![finding(
                "SEC-1",
                Severity::Major,
                "",
                vec![op(
                    OpKind::AddGuardrail,
                    Target::Constraints,
                    "Never commit .env or expose ANTHROPIC_API_KEY in generated code",
                )],
            )],
        ),
        critique(
            "clarity",
            vec![finding(
                "CLR-1",
                Severity::Minor,
                "optimize the settings",
                vec![op(
                    OpKind::ReplaceVague,
                    Target::Constraints,
                    "Reduce settings.ts render time by extracting the browser config section into a separate component",
                )],
            )],
        ),
        critique(
            "testing",
            vec![finding(
                "TST-1",
                Severity::Minor,
                "",
                vec![op(
                    OpKind::AddAcceptanceCriteria,
                    Target::Constraints,
                    "Run npm run test after changes. All existing tests must pass.",
                )],
            )],
        ),
    ]
}

#[test]
fn a_vague_prompt_becomes_a_refined_one() {
    let e = run(VAGUE, &four());
    assert_eq!(
        e.refined,
        "Reduce settings.ts render time by extracting the browser config section into a separate component page\n\n\
## Constraints\n\
- Follow the existing functional style in src/: pure functions, named exports, no classes\n\n\
## Guardrails\n\
- Never commit .env or expose ANTHROPIC_API_KEY in generated code\n\n\
## Acceptance criteria\n\
- Run npm run test after changes. All existing tests must pass.\n"
    );
    // Applied in priority order: security, testing, domain SME, clarity.
    let who: Vec<&str> = e
        .applied
        .iter()
        .map(|a| a.proposal.reviewer.as_str())
        .collect();
    assert_eq!(who, ["security", "testing", "domain_sme", "clarity"]);
    assert!(
        matches!(&e.applied[3].change, Change::Replaced { from, .. } if from == "optimize the settings")
    );
    assert!(e.dropped.is_empty() && e.conflicts.is_empty() && e.disagreements.is_empty());
}

#[test]
fn all_no_issues_is_no_changes_and_the_original_passes_untouched() {
    let prompt = "  Keep   this\r\nexactly as is  \n\n";
    let critiques: Vec<Critique> = ["security", "clarity", "testing", "domain_sme"]
        .iter()
        .map(|r| Critique::no_issues(r))
        .collect();
    let e = run(prompt, &critiques);
    assert!(!e.changed());
    assert_eq!(e.refined, prompt);
    let e = run(prompt, &[]);
    assert_eq!(e.refined, prompt);
}

#[test]
fn duplicates_keep_the_most_severe_copy() {
    let e = run(
        "Fix the login bug.",
        &[
            critique(
                "clarity",
                vec![finding(
                    "C1",
                    Severity::Minor,
                    "",
                    vec![op(
                        OpKind::AddConstraint,
                        Target::Constraints,
                        "Run the tests.",
                    )],
                )],
            ),
            critique(
                "testing",
                vec![finding(
                    "T1",
                    Severity::Nit,
                    "",
                    vec![op(
                        OpKind::AddConstraint,
                        Target::Constraints,
                        "run  the TESTS",
                    )],
                )],
            ),
            critique(
                "domain_sme",
                vec![finding(
                    "D1",
                    Severity::Minor,
                    "",
                    vec![op(
                        OpKind::AddConstraint,
                        Target::Constraints,
                        "Run the tests",
                    )],
                )],
            ),
        ],
    );
    assert_eq!(e.applied.len(), 1);
    // Equal severity (minor): the reviewer first in the priority order wins.
    assert_eq!(e.applied[0].proposal.reviewer, "domain_sme");
    assert_eq!(e.deduplicated.len(), 2);
    assert!(e.deduplicated.iter().all(|d| d.kept == "domain_sme/D1"));
    assert_eq!(
        e.refined,
        "Fix the login bug.\n\n## Constraints\n- Run the tests"
    );
}

#[test]
fn an_add_already_in_the_prompt_is_not_repeated() {
    let e = run(
        "Refactor auth. Run the tests.",
        &[critique(
            "testing",
            vec![finding(
                "T1",
                Severity::Minor,
                "",
                vec![op(
                    OpKind::AddAcceptanceCriteria,
                    Target::Constraints,
                    "run the tests",
                )],
            )],
        )],
    );
    assert!(!e.changed());
    assert_eq!(e.dropped[0].why, "already in the prompt");
}

#[test]
fn security_wins_against_anyone() {
    let e = run(
        "Set up the dev environment.",
        &[
            critique(
                "clarity",
                vec![finding(
                    "C1",
                    Severity::Blocker,
                    "",
                    vec![op(
                        OpKind::AddConstraint,
                        Target::Constraints,
                        "Commit .env files so teammates can run the app",
                    )],
                )],
            ),
            critique(
                "security",
                vec![finding(
                    "S1",
                    Severity::Major,
                    "",
                    vec![op(
                        OpKind::AddGuardrail,
                        Target::Constraints,
                        "Never commit .env files",
                    )],
                )],
            ),
        ],
    );
    assert_eq!(e.applied.len(), 1);
    assert_eq!(e.applied[0].proposal.reviewer, "security");
    assert_eq!(e.conflicts.len(), 1);
    assert_eq!(e.conflicts[0].loser.reviewer, "clarity");
    assert!(
        e.conflicts[0].why.contains("security wins every conflict"),
        "{}",
        e.conflicts[0].why
    );
    assert!(e.disagreements.is_empty());
}

#[test]
fn add_against_remove_by_priority_or_a_disagreement() {
    let prompt = "Ship it. Skip the slow integration tests.";
    let remove = |sev| {
        critique(
            "clarity",
            vec![finding(
                "C1",
                sev,
                "",
                vec![op(
                    OpKind::RemoveConstraint,
                    Target::Constraints,
                    "Run the integration tests",
                )],
            )],
        )
    };
    let add = critique(
        "testing",
        vec![finding(
            "T1",
            Severity::Minor,
            "",
            vec![op(
                OpKind::AddConstraint,
                Target::Constraints,
                "Run the integration tests",
            )],
        )],
    );
    // Testing comes before clarity and is at least as severe: testing wins.
    let e = run(prompt, &[remove(Severity::Minor), add.clone()]);
    assert_eq!(e.conflicts.len(), 1);
    assert_eq!(e.conflicts[0].winner.reviewer, "testing");
    assert!(e.refined.contains("- Run the integration tests"));
    // Clarity's finding is more severe: no priority settles it.
    let e = run(prompt, &[remove(Severity::Major), add]);
    assert!(e.conflicts.is_empty());
    assert_eq!(e.disagreements.len(), 1);
    assert!(
        e.disagreements[0].about.contains("more severe"),
        "{}",
        e.disagreements[0].about
    );
    assert!(!e.changed());
    assert_eq!(e.refined, prompt);
}

#[test]
fn a_reviewer_against_itself_or_an_unranked_one_is_a_disagreement() {
    let both = critique(
        "clarity",
        vec![
            finding(
                "C1",
                Severity::Minor,
                "",
                vec![op(OpKind::AddConstraint, Target::Constraints, "Use tabs")],
            ),
            finding(
                "C2",
                Severity::Minor,
                "",
                vec![op(
                    OpKind::RemoveConstraint,
                    Target::Constraints,
                    "Use tabs",
                )],
            ),
        ],
    );
    let e = run("Use tabs. Format the file.", &[both]);
    assert_eq!(e.disagreements.len(), 1);
    assert!(e.disagreements[0].about.contains("clarity proposes both"));

    let mut rules = rules();
    rules.push(Rules {
        reviewer: "perf".into(),
        ops: OpKind::ALL.to_vec(),
        severities: Severity::ALL.to_vec(),
    });
    let critiques = [
        critique(
            "perf",
            vec![finding(
                "P1",
                Severity::Minor,
                "",
                vec![op(
                    OpKind::RemoveConstraint,
                    Target::Constraints,
                    "Cache every response",
                )],
            )],
        ),
        critique(
            "domain_sme",
            vec![finding(
                "D1",
                Severity::Minor,
                "",
                vec![op(
                    OpKind::AddConstraint,
                    Target::Constraints,
                    "Cache every response",
                )],
            )],
        ),
    ];
    let e = edit(&EditorInput {
        prompt: "Speed up the API.",
        critiques: &critiques,
        rules: &rules,
        priority_order: &order(),
    })
    .unwrap();
    assert_eq!(e.disagreements.len(), 1);
    assert!(
        e.disagreements[0].about.contains("does not rank"),
        "{}",
        e.disagreements[0].about
    );
}

#[test]
fn replace_vague_replaces_verbatim_text_or_clarifies() {
    let e = run(
        "Please optimize\n  the query and make it nice.",
        &[critique(
            "clarity",
            vec![finding(
                "C1",
                Severity::Minor,
                "optimize the query",
                vec![op(
                    OpKind::ReplaceVague,
                    Target::Constraints,
                    "cut the query's p95 latency below 50 ms",
                )],
            )],
        )],
    );
    // Whitespace differs, the words are verbatim: replaced.
    assert_eq!(
        e.refined,
        "Please cut the query's p95 latency below 50 ms and make it nice."
    );
    let e = run(
        "Make the dashboard better.",
        &[critique(
            "clarity",
            vec![finding(
                "C1",
                Severity::Minor,
                "improve the dashboard",
                vec![op(
                    OpKind::ReplaceVague,
                    Target::Constraints,
                    "Load the dashboard in under 1 s",
                )],
            )],
        )],
    );
    // The prompt never said "improve": nothing to clarify, and it says why.
    assert_eq!(e.refined, "Make the dashboard better.");
    assert!(e.applied.is_empty());
    assert!(
        e.dropped[0]
            .why
            .contains("\"improve the dashboard\" is not in the prompt"),
        "{:?}",
        e.dropped
    );
    // Its words are there, not as one phrase: a clarification.
    let e = run(
        "Make the dashboard better and improve the charts.",
        &[critique(
            "clarity",
            vec![finding(
                "C1",
                Severity::Minor,
                "improve the dashboard",
                vec![op(
                    OpKind::ReplaceVague,
                    Target::Constraints,
                    "Load the dashboard in under 1 s",
                )],
            )],
        )],
    );
    assert_eq!(
        e.refined,
        "Make the dashboard better and improve the charts.\n\n## Clarifications\n- \"improve the dashboard\" means: Load the dashboard in under 1 s"
    );
    assert!(matches!(e.applied[0].change, Change::Clarified { .. }));
}

#[test]
fn nothing_is_removed_without_remove_constraint() {
    let prompt = "Use eval() to parse the config. Keep it short.";
    let e = run(
        prompt,
        &[critique(
            "security",
            vec![finding(
                "S1",
                Severity::Blocker,
                "Use eval() to parse the config.",
                vec![op(
                    OpKind::AddGuardrail,
                    Target::Constraints,
                    "Parse the config with a JSON parser, never eval()",
                )],
            )],
        )],
    );
    assert!(e.refined.starts_with(prompt), "{}", e.refined);
    let e = run(
        prompt,
        &[critique(
            "security",
            vec![finding(
                "S1",
                Severity::Blocker,
                "",
                vec![op(
                    OpKind::RemoveConstraint,
                    Target::Constraints,
                    "Use eval() to parse the config.",
                )],
            )],
        )],
    );
    assert_eq!(e.refined, "Keep it short.");
    assert!(
        matches!(&e.applied[0].change, Change::Removed { text } if text == "Use eval() to parse the config.")
    );
    let e = run(
        prompt,
        &[critique(
            "security",
            vec![finding(
                "S1",
                Severity::Blocker,
                "",
                vec![op(
                    OpKind::RemoveConstraint,
                    Target::Constraints,
                    "Disable TLS checks",
                )],
            )],
        )],
    );
    assert_eq!(e.refined, prompt);
    assert!(e.dropped[0].why.contains("does not occur in the prompt"));
}

#[test]
fn additions_go_into_the_prompts_own_section() {
    let prompt = "# Task\nAdd a logout button.\n\n## Constraints\n- Keep the bundle small\n\n## Notes\nnone\n";
    let e = run(
        prompt,
        &[critique(
            "testing",
            vec![finding(
                "T1",
                Severity::Minor,
                "",
                vec![
                    op(
                        OpKind::AddConstraint,
                        Target::Constraints,
                        "Keep existing tests green",
                    ),
                    op(
                        OpKind::AddAcceptanceCriteria,
                        Target::Constraints,
                        "Clicking logout clears the session",
                    ),
                ],
            )],
        )],
    );
    assert_eq!(
        e.refined,
        "# Task\nAdd a logout button.\n\n## Constraints\n- Keep the bundle small\n- Keep existing tests green\n\n## Notes\nnone\n\n## Acceptance criteria\n- Clicking logout clears the session\n"
    );
}

#[test]
fn invalid_ops_are_dropped_with_the_reason() {
    let e = run(
        "Write a scraper.",
        &[
            critique(
                "security",
                vec![finding(
                    "S1",
                    Severity::Minor,
                    "",
                    vec![op(
                        OpKind::AddGuardrail,
                        Target::Constraints,
                        "Respect robots.txt",
                    )],
                )],
            ),
            critique(
                "testing",
                vec![finding(
                    "T1",
                    Severity::Minor,
                    "x",
                    vec![op(OpKind::ReplaceVague, Target::Constraints, "y")],
                )],
            ),
            critique(
                "ghost",
                vec![finding(
                    "G1",
                    Severity::Minor,
                    "",
                    vec![op(OpKind::AddConstraint, Target::Constraints, "Boo")],
                )],
            ),
            critique(
                "clarity",
                vec![finding(
                    "C1",
                    Severity::Minor,
                    "",
                    vec![op(OpKind::AddConstraint, Target::Constraints, "   ")],
                )],
            ),
        ],
    );
    assert!(!e.changed());
    let whys: Vec<&str> = e.dropped.iter().map(|d| d.why.as_str()).collect();
    assert_eq!(
        whys,
        [
            "security findings are blocker or major only; this one is minor",
            "testing may not propose ReplaceVague (it may use AddAcceptanceCriteria, AddConstraint)",
            "its value is empty",
            "no reviewer named `ghost` took part in this review",
        ]
    );
}

#[test]
fn runaway_additions_make_the_editor_fail() {
    let big = "x".repeat(1_900);
    let critiques: Vec<Critique> = (0..40)
        .map(|i| {
            critique(
                "domain_sme",
                vec![finding(
                    &format!("D{i}"),
                    Severity::Minor,
                    "",
                    vec![op(
                        OpKind::AddContext,
                        Target::Context,
                        &format!("{i} {big}"),
                    )],
                )],
            )
        })
        .collect();
    let rules = rules();
    let err = edit(&EditorInput {
        prompt: "p",
        critiques: &critiques,
        rules: &rules,
        priority_order: &order(),
    })
    .unwrap_err();
    assert!(matches!(err, EditorError::TooLarge { .. }));
}

/// Six reviewers with overlapping, conflicting and duplicate proposals.
fn busy() -> Vec<Critique> {
    let mut c = four();
    c.push(critique(
        "documentation",
        vec![finding(
            "DOC-1",
            Severity::Minor,
            "",
            vec![
                op(
                    OpKind::AddConstraint,
                    Target::Constraints,
                    "Update README.md's settings section",
                ),
                op(
                    OpKind::AddConstraint,
                    Target::Constraints,
                    "Run npm run test after changes. All existing tests must pass",
                ),
            ],
        )],
    ));
    c.push(critique(
        "frontend_ux",
        vec![
            finding(
                "UX-1",
                Severity::Major,
                "settings page",
                vec![op(
                    OpKind::AddAcceptanceCriteria,
                    Target::Constraints,
                    "The settings tab stays keyboard accessible",
                )],
            ),
            finding(
                "UX-2",
                Severity::Nit,
                "optimize the settings",
                vec![op(
                    OpKind::AddContext,
                    Target::Context,
                    "Include src/settings.ts and styles.css",
                )],
            ),
        ],
    ));
    c[2].findings.push(finding(
        "CLR-2",
        Severity::Nit,
        "",
        vec![op(OpKind::RemoveConstraint, Target::Constraints, "page")],
    ));
    c[2].findings.push(finding(
        "CLR-3",
        Severity::Minor,
        "",
        vec![op(
            OpKind::AddConstraint,
            Target::Output,
            "Commit .env or expose nothing",
        )],
    ));
    c
}

#[test]
fn the_busy_panel_is_stable() {
    let e = run(VAGUE, &busy());
    insta::assert_json_snapshot!("busy_panel_edit", e);
}

fn shuffled(mut critiques: Vec<Critique>, seed: &[u64]) -> Vec<Critique> {
    let mut it = seed.iter().cycle();
    let mut next = || *it.next().unwrap_or(&0) as usize;
    for c in &mut critiques {
        for f in &mut c.findings {
            let n = f.suggested_ops.len();
            if n > 1 {
                f.suggested_ops.rotate_left(next() % n);
            }
        }
        let n = c.findings.len();
        if n > 1 {
            c.findings.swap(next() % n, next() % n);
        }
    }
    let n = critiques.len();
    for i in (1..n).rev() {
        critiques.swap(i, next() % (i + 1));
    }
    critiques
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn input_order_never_changes_the_output(seed in proptest::collection::vec(any::<u64>(), 1..16)) {
        let reference = serde_json::to_string(&run(VAGUE, &busy())).unwrap();
        let again = serde_json::to_string(&run(VAGUE, &shuffled(busy(), &seed))).unwrap();
        prop_assert_eq!(reference, again);
    }
}
