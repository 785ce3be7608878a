//! The editor on the prompt-review plugin's own examples, where the plugin's
//! users tripped: "Security wins" over a contradiction in other words (the
//! same file, secret, command, URL or path, one op forbidding it and one
//! asking for it), `ReplaceVague` only on words the prompt has (its
//! `original` when given), `RefactorStructure` that restructures, and
//! `RemoveConstraint` that leaves no fragment behind.

use crit_prompt::critique::{Critique, Finding, Op, OpKind, Severity, Target};
use crit_prompt::editor::{Change, EditorInput, edit};
use crit_prompt::reviewers;

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

fn critique(reviewer: &str, severity: Severity, op: OpKind, value: &str) -> Critique {
    with_ops(reviewer, severity, "", vec![(op, value, None)])
}

fn with_ops(
    reviewer: &str,
    severity: Severity,
    evidence: &str,
    ops: Vec<(OpKind, &str, Option<&str>)>,
) -> Critique {
    Critique {
        reviewer_role: reviewer.into(),
        severity_max: severity,
        confidence: 0.8,
        findings: vec![Finding {
            id: format!("{}-1", reviewer.to_uppercase()),
            severity,
            confidence: 0.8,
            issue: "issue".into(),
            evidence: evidence.into(),
            suggested_ops: ops
                .into_iter()
                .map(|(op, value, original)| Op {
                    op,
                    target: Target::Constraints,
                    value: value.into(),
                    original: original.map(str::to_string),
                })
                .collect(),
        }],
        no_issues: false,
    }
}

fn run(prompt: &str, critiques: &[Critique]) -> crit_prompt::editor::Edit {
    let rules = reviewers::builtin_rules();
    let order = order();
    edit(&EditorInput {
        prompt,
        critiques,
        rules: &rules,
        priority_order: &order,
    })
    .unwrap()
}

#[test]
fn security_wins_over_the_same_subject_in_other_words() {
    let prompt = "Set up the dev environment and check the config.";
    // (security's guardrail, another reviewer's op asking for the same thing)
    let pairs = [
        (
            "Do not read or print the .env file.",
            "Read the .env file and print its values so the user can check them.",
        ),
        (
            "Never echo ANTHROPIC_API_KEY or any other secret.",
            "Print ANTHROPIC_API_KEY at startup to confirm the key loaded.",
        ),
        (
            "Do not run `git push --force`.",
            "Finish with `git push --force` to update the branch.",
        ),
        (
            "Never send project data to https://paste.example.com/.",
            "Upload the logs to https://paste.example.com so we can share them.",
        ),
        (
            "Do not touch anything under ~/.ssh",
            "Copy the deploy key into ~/.ssh and make it readable.",
        ),
    ];
    for (guard, asks) in pairs {
        for other in ["clarity", "domain_sme", "testing"] {
            let op = match other {
                "testing" => OpKind::AddAcceptanceCriteria,
                _ => OpKind::AddConstraint,
            };
            let critiques = [
                critique(other, Severity::Blocker, op, asks),
                critique("security", Severity::Major, OpKind::AddGuardrail, guard),
            ];
            let e = run(prompt, &critiques);
            assert_eq!(e.conflicts.len(), 1, "{guard} / {asks}: {e:#?}");
            assert_eq!(e.conflicts[0].winner.reviewer, "security");
            assert_eq!(e.conflicts[0].loser.reviewer, other);
            assert!(
                e.conflicts[0].why.contains("security wins"),
                "{}",
                e.conflicts[0].why
            );
            assert_eq!(e.applied.len(), 1);
            assert!(!e.refined.contains(asks), "{}", e.refined);
            // The same decision whatever order the critiques come in.
            let reversed: Vec<Critique> = critiques.iter().rev().cloned().collect();
            assert_eq!(run(prompt, &reversed), e);
        }
    }
    // Different subjects, or both forbidding: both apply.
    let e = run(
        prompt,
        &[
            critique(
                "security",
                Severity::Major,
                OpKind::AddGuardrail,
                "Never commit .env",
            ),
            critique(
                "documentation",
                Severity::Minor,
                OpKind::AddConstraint,
                "List every variable in .env.example",
            ),
            critique(
                "clarity",
                Severity::Minor,
                OpKind::AddConstraint,
                "Read .env to find the port but never print it",
            ),
        ],
    );
    assert!(
        e.conflicts.is_empty() && e.disagreements.is_empty(),
        "{e:#?}"
    );
    assert_eq!(e.applied.len(), 3);
}

#[test]
fn two_reviewers_below_security_are_settled_by_priority() {
    let e = run(
        "Release the package.",
        &[
            critique(
                "domain_sme",
                Severity::Minor,
                OpKind::AddConstraint,
                "Run `npm publish` once the build passes.",
            ),
            critique(
                "testing",
                Severity::Minor,
                OpKind::AddAcceptanceCriteria,
                "Never run `npm publish` before every test passes.",
            ),
        ],
    );
    assert_eq!(e.conflicts.len(), 1, "{e:#?}");
    assert_eq!(e.conflicts[0].winner.reviewer, "testing");
}

#[test]
fn replace_vague_replaces_only_words_the_prompt_has() {
    // The plugin's example: "optimize the settings" → measurable.
    let better = "Reduce settings.ts render time by extracting the browser config section into a separate component";
    let e = run(
        "Optimize the settings page.",
        &[with_ops(
            "clarity",
            Severity::Minor,
            "the settings need optimizing",
            vec![(OpKind::ReplaceVague, better, Some("Optimize the settings"))],
        )],
    );
    assert_eq!(e.refined, format!("{better} page."));
    assert!(
        matches!(&e.applied[0].change, Change::Replaced { from, .. } if from == "Optimize the settings")
    );
    // A prompt that never said it gets no "… means:" line.
    for (evidence, original) in [
        ("optimize the settings", None),
        ("whatever", Some("optimize the settings")),
    ] {
        let e = run(
            "Add a dark mode toggle.",
            &[with_ops(
                "clarity",
                Severity::Minor,
                evidence,
                vec![(OpKind::ReplaceVague, better, original)],
            )],
        );
        assert_eq!(e.refined, "Add a dark mode toggle.");
        assert!(e.applied.is_empty());
        assert!(
            e.dropped[0].why.contains("is not in the prompt"),
            "{:?}",
            e.dropped
        );
    }
}

#[test]
fn refactor_structure_restructures_the_prompt() {
    let prompt = "Optimize the settings page. It must not break the mobile layout. Use the existing components.";
    let e = run(
        prompt,
        &[
            critique(
                "clarity",
                Severity::Minor,
                OpKind::RefactorStructure,
                "Split the request into a task and its constraints",
            ),
            critique(
                "domain_sme",
                Severity::Minor,
                OpKind::AddConstraint,
                "Follow the existing functional style in src/",
            ),
            critique(
                "testing",
                Severity::Minor,
                OpKind::AddAcceptanceCriteria,
                "Run npm run test after changes. All existing tests must pass.",
            ),
        ],
    );
    assert_eq!(
        e.refined,
        "## Task\nOptimize the settings page. Use the existing components.\n\n## Constraints\n- It must not break the mobile layout.\n- Follow the existing functional style in src/\n\n## Acceptance criteria\n- Run npm run test after changes. All existing tests must pass."
    );
    assert!(!e.refined.contains("## Structure"));
    let restructured = e
        .applied
        .iter()
        .find(|a| a.proposal.op == OpKind::RefactorStructure)
        .unwrap();
    assert_eq!(
        restructured.change,
        Change::Restructured {
            sections: vec!["Task".into(), "Constraints".into()]
        }
    );
    // A prompt with sections of its own is left as its author wrote it.
    let sectioned = "# Goal\nOptimize the settings page.\n";
    let e = run(
        sectioned,
        &[critique(
            "clarity",
            Severity::Minor,
            OpKind::RefactorStructure,
            "Add sections",
        )],
    );
    assert_eq!(e.refined, sectioned);
    assert!(
        e.dropped[0].why.contains("already has sections"),
        "{:?}",
        e.dropped
    );
}

#[test]
fn remove_constraint_leaves_no_fragment() {
    let e = run(
        "Add request logging. Also log the API key so we can debug.",
        &[critique(
            "security",
            Severity::Blocker,
            OpKind::RemoveConstraint,
            "log the API key",
        )],
    );
    assert_eq!(e.refined, "Add request logging.");
    assert!(
        matches!(&e.applied[0].change, Change::Removed { text } if text == "Also log the API key so we can debug.")
    );
    // One clause of several goes alone; a word of a long sentence too.
    let e = run(
        "Refactor the parser, log the API key, and add tests.",
        &[critique(
            "security",
            Severity::Blocker,
            OpKind::RemoveConstraint,
            "log the API key",
        )],
    );
    assert_eq!(e.refined, "Refactor the parser, and add tests.");
    let e = run(
        "Move the settings into a separate component on a new page.",
        &[critique(
            "security",
            Severity::Blocker,
            OpKind::RemoveConstraint,
            "new",
        )],
    );
    assert_eq!(
        e.refined,
        "Move the settings into a separate component on a page."
    );
}
