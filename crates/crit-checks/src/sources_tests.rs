use std::fs;
use std::process::Command;

use super::*;

struct Fixture {
    _tmp: tempfile::TempDir,
    dirs: SourceDirs,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for d in [
        "home/.claude/checks",
        "project/checks",
        "project/session/rules",
    ] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    let dirs = SourceDirs {
        session: root.join("project/session"),
        project_root: root.join("project"),
        home: Some(root.join("home")),
    };
    Fixture { _tmp: tmp, dirs }
}

fn yaml(id: &str, pattern: &str) -> String {
    format!("checks:\n  - id: {id}\n    pattern: \"{pattern}\"\n")
}

fn table(rows: &[(&str, &str)]) -> String {
    let mut s = String::from(
        "## Anti-Patterns Table\n\n| If you write... | STOP because... |\n|---|---|\n",
    );
    for (p, r) in rows {
        s.push_str(&format!("| `{p}` | {r} |\n"));
    }
    s
}

fn ids(l: &Loaded) -> Vec<(String, String, SourceKind)> {
    l.checks
        .iter()
        .map(|c| (c.id.clone(), c.pattern.clone(), c.source))
        .collect()
}

fn write(path: PathBuf, text: &str) {
    fs::write(path, text).unwrap();
}

#[test]
fn every_source_in_seed_order() {
    let f = fixture();
    let d = &f.dirs;
    let home = d.home.clone().unwrap().join(".claude");
    write(d.session.join("checks.yaml"), &yaml("a", "session"));
    write(home.join("checks/global-checks.yaml"), &yaml("b", "global"));
    write(
        d.project_root.join("checks/z.yaml"),
        &yaml("c2", "project z"),
    );
    write(
        d.project_root.join("checks/a.yml"),
        &yaml("c1", "project a"),
    );
    write(d.project_root.join("checks/notes.txt"), "ignored");
    write(
        d.session.join("rules/physics-antipatterns.md"),
        "## Loops\n| Code Pattern | Problem |\n|---|---|\n| `G(p+q)` | loop |\n",
    );
    write(
        d.session.join("project-claude.md"),
        &table(&[("session-claude", "e")]),
    );
    write(
        d.project_root.join("CLAUDE.md"),
        &table(&[("project-claude", "f")]),
    );
    write(
        home.join("CLAUDE.md"),
        &table(&[("x", "g1"), ("global-claude", "g2")]),
    );
    let ctx = vec![serde_saphyr::from_str::<RawCheck>("id: ctx\npattern: context\n").unwrap()];
    let l = load(d, Some((Path::new("context.yaml"), ctx))).unwrap();
    let got: Vec<(String, SourceKind)> = ids(&l).into_iter().map(|(i, _, k)| (i, k)).collect();
    let want = vec![
        ("a", SourceKind::SessionChecks),
        ("b", SourceKind::GlobalChecks),
        ("c1", SourceKind::ProjectChecks),
        ("c2", SourceKind::ProjectChecks),
        ("physics_antipatterns_1", SourceKind::RulesFile),
        ("anti_pattern_1", SourceKind::SessionClaudeMd),
        // The user's own CLAUDE.md numbers its own rows: nothing collides.
        ("user_anti_pattern_1", SourceKind::GlobalClaudeMd),
        ("user_anti_pattern_2", SourceKind::GlobalClaudeMd),
        ("ctx", SourceKind::Context),
    ];
    assert_eq!(
        got,
        want.into_iter()
            .map(|(i, k)| (i.to_string(), k))
            .collect::<Vec<_>>()
    );
    assert_eq!(l.checks[4].reason, "Loops: loop");
    assert!(l.dropped.is_empty(), "{:?}", l.dropped);
    assert!(
        !l.checks.iter().any(|c| c.pattern == "project-claude"),
        "f is only a fallback for e"
    );
}

#[test]
fn project_claude_md_is_the_fallback_when_no_session_copy() {
    let f = fixture();
    write(
        f.dirs.project_root.join("CLAUDE.md"),
        &table(&[("project-claude", "f")]),
    );
    let l = load(&f.dirs, None).unwrap();
    assert_eq!(
        ids(&l),
        vec![(
            "anti_pattern_1".into(),
            "project-claude".into(),
            SourceKind::ProjectClaudeMd
        )]
    );
}

#[test]
fn earlier_source_wins_on_id_collision() {
    let f = fixture();
    let d = &f.dirs;
    let home = d.home.clone().unwrap().join(".claude");
    write(d.session.join("checks.yaml"), &yaml("same", "from session"));
    write(
        home.join("checks/global-checks.yaml"),
        &yaml("same", "from global"),
    );
    write(
        d.project_root.join("checks/p.yaml"),
        &yaml("same", "from project"),
    );
    let ctx =
        vec![serde_saphyr::from_str::<RawCheck>("id: same\npattern: from context\n").unwrap()];
    let l = load(d, Some((Path::new("context.yaml"), ctx))).unwrap();
    assert_eq!(
        ids(&l),
        vec![(
            "same".into(),
            "from session".into(),
            SourceKind::SessionChecks
        )]
    );
    assert_eq!(l.dropped.len(), 3);

    fs::remove_file(d.session.join("checks.yaml")).unwrap();
    let l = load(d, None).unwrap();
    assert_eq!(ids(&l)[0].1, "from global");
    fs::remove_file(home.join("checks/global-checks.yaml")).unwrap();
    assert_eq!(ids(&load(d, None).unwrap())[0].1, "from project");
}

#[test]
fn no_checks_is_the_seed_error() {
    let f = fixture();
    let err = load(&f.dirs, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "No checks found (no checks.yaml, no CLAUDE.md Anti-Patterns Table, no context.yaml checks)"
    );
    // A CLAUDE.md without an anti-pattern table gives nothing either.
    write(
        f.dirs.project_root.join("CLAUDE.md"),
        "# Notes\n\nNo table here.\n",
    );
    assert!(matches!(load(&f.dirs, None), Err(CheckError::NoChecks)));
}

#[test]
fn malformed_global_or_project_checks_are_errors() {
    let f = fixture();
    let home = f.dirs.home.clone().unwrap().join(".claude");
    write(
        home.join("checks/global-checks.yaml"),
        "checks:\n  - id: x\n",
    );
    let err = load(&f.dirs, None).unwrap_err();
    assert!(err.to_string().contains("global-checks.yaml:2:"), "{err}");
    fs::remove_file(home.join("checks/global-checks.yaml")).unwrap();
    write(f.dirs.project_root.join("checks/bad.yaml"), "checks: {\n");
    let err = load(&f.dirs, None).unwrap_err();
    assert!(err.to_string().contains("bad.yaml:"), "{err}");
}

#[test]
fn project_root_precedence() {
    let f = fixture();
    let home = f.dirs.home.clone().unwrap();
    assert_eq!(
        project_root(&f.dirs.session, Some(Path::new("/explicit")), None),
        PathBuf::from("/explicit")
    );
    assert_eq!(
        project_root(&f.dirs.session, Some(Path::new("~/proj")), Some(&home)),
        home.join("proj")
    );
    // Not a git repository: the parent of the session directory.
    assert_eq!(
        project_root(&f.dirs.session, None, None),
        f.dirs.project_root
    );
    let ok = Command::new("git")
        .args(["init", "-q"])
        .arg(&f.dirs.project_root)
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        let got = project_root(&f.dirs.session, None, None);
        assert_eq!(
            got.canonicalize().unwrap(),
            f.dirs.project_root.canonicalize().unwrap()
        );
    }
}

#[test]
fn rules_ids_count_across_every_table_of_a_file() {
    let f = fixture();
    write(
        f.dirs.session.join("rules/physics-antipatterns.md"),
        "## A\n| Code Pattern | Problem |\n|---|---|\n| `p1` | r1 |\n| `p2` | r2 |\n\n## Loop Diagram Triggers\n| Code Pattern | Problem | Fix |\n|---|---|---|\n| `G(p+q)` | Two propagators = loop diagram | See §GATEKEEPER.7 |\n",
    );
    write(
        f.dirs.session.join("rules/prose.md"),
        "| Text Pattern | Problem |\n|---|---|\n| very unique | weasel |\n",
    );
    let l = load(&f.dirs, None).unwrap();
    let got: Vec<(&str, &str, &str)> = l
        .checks
        .iter()
        .map(|c| (c.id.as_str(), c.pattern.as_str(), c.reason.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("physics_antipatterns_1", "p1", "A: r1"),
            ("physics_antipatterns_2", "p2", "A: r2"),
            (
                "physics_antipatterns_3",
                "G(p+q)",
                "Loop Diagram Triggers: Two propagators = loop diagram. See §GATEKEEPER.7"
            ),
            ("prose_1", "very unique", "weasel"),
        ]
    );
    assert!(
        l.checks
            .iter()
            .all(|c| c.fix.is_none() && c.match_rule == crate::MatchRule::Literal)
    );
}
