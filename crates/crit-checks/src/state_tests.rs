use super::*;

#[test]
fn state_round_trips_in_the_seed_shape() {
    let seed = "edits: 2\nretries:\n  no_eval: 1\n  no_any_type: 0\nhistory:\n  - check: no_eval\n    fix: \"eval → JSON.parse\"\n    line: 42\n  - check: no_any_type\n    fix: \": any → : unknown\"\n    line: 58\napproved:\n  - console_log_ok  # User approved this check.id\n";
    let (s, warn) = State::parse_or_reset(Path::new("state.yaml"), seed);
    assert!(warn.is_none());
    assert_eq!(s.edits, 2);
    assert_eq!(s.retries_of("no_eval"), 1);
    assert_eq!(s.history[1].fix, ": any → : unknown");
    assert!(s.is_approved("console_log_ok"));
    let (again, _) = State::parse_or_reset(Path::new("state.yaml"), &s.to_yaml());
    assert_eq!(again, s);
    assert_eq!(
        State::default().to_yaml(),
        "edits: 0\nretries: {}\nhistory: []\napproved: []\n"
    );
}

#[test]
fn malformed_state_resets_with_a_warning() {
    for bad in [
        "edits: many\n",
        "retries: [\n",
        "- a\n",
        "history:\n  - check: x\n",
    ] {
        let (s, warn) = State::parse_or_reset(Path::new("/s/state.yaml"), bad);
        assert_eq!(s, State::default(), "{bad}");
        let w = warn.unwrap();
        assert!(
            w.starts_with("/s/state.yaml:") && w.contains("reset"),
            "{w}"
        );
    }
}

#[test]
fn malformed_context_is_an_error_with_location() {
    let err = Context::parse(
        Path::new("context.yaml"),
        "reviewer_persona: \"x\nproject_root: [\n",
    )
    .unwrap_err();
    assert!(err.is_config_error());
    assert!(err.to_string().starts_with("context.yaml:"), "{err}");
    let err = Context::parse(
        Path::new("context.yaml"),
        "reviewer_personas: \"just a string\"\n",
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("context.yaml:1:"), "{err}");
    assert!(Context::parse(Path::new("c"), "plan_summary: extra keys are fine\n").is_ok());
}

#[test]
fn persona_precedence() {
    let ctx = Context::parse(
        Path::new("c"),
        "reviewer_persona: \"Staff software engineer\"\n",
    )
    .unwrap();
    let (r, w) = Reviewers::from_context(&ctx);
    assert!(r.single && w.is_none());
    assert_eq!(r.display(), "Staff software engineer");

    let both = "reviewer_persona: Solo\nreviewer_personas:\n  - name: \"Dr. Emmy Noether\"\n    domain: \"symmetry and invariant theory\"\n    focus: [\"Lie groups\"]\n  - name: \"Claude (self-review)\"\n    domain: \"anti-pattern detection\"\n";
    let (r, w) = Reviewers::from_context(&Context::parse(Path::new("c"), both).unwrap());
    assert!(!r.single);
    assert!(w.unwrap().contains("reviewer_personas takes precedence"));
    assert_eq!(r.display(), "Dr. Emmy Noether, Claude (self-review)");
    assert_eq!(r.check_voice(), "Claude (self-review)");

    let (r, w) = Reviewers::from_context(&Context::default());
    assert!(r.defaulted && w.is_none());
    assert_eq!(r.display(), "Senior Technical Reviewer, Claude");
    // A created context names no one: AUTO-SELECT may pick, else the default panel.
    let minimal = Context::parse(Path::new("c"), &minimal_context_yaml()).unwrap();
    let (r, _) = Reviewers::from_context(&minimal);
    assert!(r.defaulted);
    assert_eq!(r.panel, default_panel());
    // AUTO-SELECT's pick written back reads as the panel, replacing an empty list.
    let picked = vec![Persona {
        name: "Knuth".into(),
        domain: "software".into(),
        focus: vec!["correctness".into()],
    }];
    let text = with_panel("project_root: /p\nreviewer_personas: []\n", &picked);
    let ctx = Context::parse(Path::new("c"), &text).unwrap();
    assert_eq!(ctx.reviewer_personas.unwrap(), picked);
    assert_eq!(ctx.project_root.unwrap(), Path::new("/p"));
}

#[test]
fn awkward_ids_round_trip() {
    let mut s = State::default();
    for id in ["true", "123", "a: b", "-x", "null", "ü", "with \"quote\""] {
        s.retries.insert(id.into(), 1);
        s.approved.push(id.into());
        s.history.push(HistoryEntry {
            check: id.into(),
            fix: format!("{id} → x"),
            line: 1,
        });
    }
    let (again, warn) = State::parse_or_reset(Path::new("s"), &s.to_yaml());
    assert!(warn.is_none(), "{warn:?}");
    assert_eq!(again, s);
}

#[test]
fn a_hand_written_panel_without_claude_gains_claude() {
    // "Claude must always be included", a panel written by hand too.
    let noether_witten = "reviewer_personas:\n  - name: \"Dr. Emmy Noether\"\n    domain: \"symmetry and invariant theory\"\n  - name: \"Prof. Edward Witten\"\n    domain: \"mathematical physics\"\n";
    let (r, w) = Reviewers::from_context(&Context::parse(Path::new("c"), noether_witten).unwrap());
    assert_eq!(r.display(), "Dr. Emmy Noether, Prof. Edward Witten, Claude");
    assert!(w.unwrap().contains("Claude joins the panel"));
    assert!(!r.defaulted);
}
