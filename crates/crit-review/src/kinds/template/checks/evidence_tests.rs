use super::*;
use crit_core::Severity;

fn finding(path: &str, start: u32, end: u32, evidence: &str) -> Finding {
    let mut f =
        Finding::new("Leak", Severity::P1, "code").with_location(Location::lines(path, start, end));
    f.evidence = Some(evidence.to_string());
    f
}

fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    let mut text = String::new();
    for i in 1..=40 {
        text.push_str(&format!("    let v{i} = compute({i});\n"));
    }
    text.push_str("    conn.close()\n");
    std::fs::write(d.path().join("src/a.rs"), text).unwrap();
    std::fs::write(
        d.path().join("src/latin.rs"),
        b"let s = \"caf\xe9\";\nrun(s);\n",
    )
    .unwrap();
    d
}

fn sources<'a>(root: &'a Path, files: &'a [String]) -> Sources<'a> {
    Sources {
        root,
        patch: "diff --git a/src/gone.rs b/src/gone.rs\n--- a/src/gone.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-old_code();\n",
        files,
        conventions: "# Project conventions\n<file path=\"CLAUDE.md\">\nErrors are returned, never unwrapped.\n</file>",
    }
}

#[test]
fn only_proof_dismisses_and_nothing_is_lowered() {
    let d = project();
    let files = vec!["src/a.rs".to_string(), "src/gone.rs".to_string()];
    let src = sources(d.path(), &files);
    let mut findings = vec![
        // At the cited lines, copied with the diff's numbers and marker.
        finding(
            "src/a.rs",
            10,
            11,
            "   10 +     let v10 = compute(10);\n   11 +     let v11 = compute(11);",
        ),
        // Elsewhere in the file: kept at its severity, with a note.
        finding("src/a.rs", 2, 2, "let v30 = compute(30);"),
        // Nowhere: dismissed, with the proof.
        finding("src/a.rs", 5, 5, "let v5 = compute(5).unwrap();"),
        // A removed line of a deleted file: in the diff, kept.
        finding("src/gone.rs", 1, 1, "old_code();"),
        // Elided with …, and a diff prefix on the path.
        finding(
            "b/src/a.rs",
            1,
            40,
            "let v1 = compute(1);\n…\nlet v40 = compute(40);",
        ),
        // Lines joined differently: white space does not matter.
        finding(
            "a/src/a.rs",
            3,
            4,
            "let v3 = compute(3); let v4 = compute(4);",
        ),
        // A file that is not UTF-8: the quote's é is not comparable.
        finding("src/latin.rs", 1, 1, "let s = \"café\";"),
        // No such file: unchecked.
        finding("src/missing.rs", 1, 1, "anything()"),
    ];
    // A rule not in the conventions: the quote is wrong, not proven the
    // finding; kept, marked, with a note.
    let mut convention = finding("src/a.rs", 20, 20, "let v20 = compute(20);");
    convention.convention = Some("Errors are always logged.".into());
    findings.push(convention);
    let mut dismissed = Vec::new();
    check(&mut findings, &mut dismissed, &src);
    assert_eq!(findings.len(), 8);
    assert!(
        findings.iter().all(|f| f.severity == Severity::P1),
        "never lowered"
    );
    assert_eq!(findings[1].location.as_ref().unwrap().start_line(), Some(2));
    assert!(findings[1].body.contains("line 30"), "{}", findings[1].body);
    assert_eq!(
        findings[3].path(),
        Some("src/a.rs"),
        "the prefix is stripped"
    );
    assert_eq!(findings[4].path(), Some("src/a.rs"));
    let marks: Vec<Option<VerificationOutcome>> = findings
        .iter()
        .map(|f| f.verification.as_ref().map(|v| v.outcome))
        .collect();
    assert_eq!(
        marks,
        [
            None,
            None,
            None,
            None,
            None,
            Some(VerificationOutcome::Unchecked),
            Some(VerificationOutcome::Unchecked),
            Some(VerificationOutcome::Unchecked)
        ]
    );
    assert!(
        findings[7]
            .body
            .contains("not in the project's conventions")
    );
    let causes: Vec<&str> = dismissed.iter().map(|d| d.cause.as_str()).collect();
    assert_eq!(causes, ["evidence_not_found"]);
    assert!(dismissed[0].reason.contains("compute(5).unwrap()"));
    assert!(
        dismissed[0].proof.contains("read `src/a.rs` (41 lines)"),
        "{}",
        dismissed[0].proof
    );
}

#[test]
fn paths_outside_the_root_are_not_read() {
    let d = project();
    assert!(read(d.path(), "../../etc/passwd").is_err());
    assert!(read(d.path(), "src/a.rs").is_ok());
    let files = vec!["deep/dir/auth.rs".to_string()];
    let src = sources(d.path(), &files);
    assert_eq!(
        resolve(&src, "auth.rs").as_deref(),
        Some("deep/dir/auth.rs")
    );
    assert_eq!(resolve(&src, "/etc/passwd"), None);
    let root = format!("{}/src/a.rs", d.path().display());
    assert_eq!(resolve(&src, &root).as_deref(), Some("src/a.rs"));
}

#[test]
fn markers_reviewers_saw_stand_for_the_files_bytes() {
    let d = project();
    std::fs::write(
        d.path().join("src/k.py"),
        "KEY = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\nif role != \"user\u{202E}\": pass\n",
    )
    .unwrap();
    let files = vec![];
    let src = sources(d.path(), &files);
    assert!(matches!(
        locate(&src, "src/k.py", "KEY = \"[REDACTED:github-token]\""),
        Found::There(_)
    ));
    assert!(matches!(
        locate(&src, "src/k.py", "if role != \"user[U+202E]\": pass"),
        Found::There(_)
    ));
    assert!(matches!(
        locate(&src, "src/k.py", "KEY = \"[REDACTED:github-token]\" + 1"),
        Found::NotThere(_)
    ));
}

/// Runs the check on one finding; returns it kept, or its dismissal.
fn one(src: &Sources<'_>, f: Finding) -> Result<Finding, Box<Dismissed>> {
    let (mut findings, mut dismissed) = (vec![f], Vec::new());
    check(&mut findings, &mut dismissed, src);
    match (findings.pop(), dismissed.pop()) {
        (Some(f), None) => Ok(f),
        (None, Some(d)) => Err(Box::new(d)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_quote_is_read_as_people_read_it() {
    let d = project();
    std::fs::write(
        d.path().join("src/div.rs"),
        "fn ratio(a: u32, b: u32) -> u32 {\n    return a / b;\n}\nlet na\u{200B}me = us\u{0435}r;\n",
    )
    .unwrap();
    let files = vec!["src/div.rs".to_string()];
    let src = sources(d.path(), &files);
    // Equal once invisible characters and look-alike letters are set aside:
    // kept, unmarked, with a note.
    for quote in [
        "let name = user;",
        "let\u{00A0}name = u\u{00AD}ser;",
        "\u{FEFF}let name\u{200E} = us\u{0435}r;",
        "ｌｅｔ name = user;",
    ] {
        let f = one(&src, finding("src/div.rs", 4, 4, quote)).unwrap();
        assert!(f.verification.is_none(), "{quote}: {f:?}");
        assert!(f.body.contains("look-alike letters set aside"), "{quote}");
    }
    // A slip: kept, unchecked, with a note.
    for quote in [
        "return a // b;",
        "retrun a / b;",
        "return a / ;",
        "  2 + retur a / b;",
    ] {
        let f = one(&src, finding("src/div.rs", 2, 2, quote)).unwrap();
        let v = f.verification.as_ref().unwrap();
        assert_eq!(v.outcome, VerificationOutcome::Unchecked, "{quote}");
        assert!(
            f.body.contains("does not match `src/div.rs` exactly"),
            "{quote}"
        );
    }
    // Other code: dismissed, and the proof says how it was compared.
    for quote in ["return a.checked_div(b).unwrap();", "eval(request.body)"] {
        let d = one(&src, finding("src/div.rs", 2, 2, quote)).unwrap_err();
        assert_eq!(d.cause, "evidence_not_found");
        assert!(d.proof.contains("look-alike letters"), "{}", d.proof);
        assert!(d.proof.contains("one edit in ten"), "{}", d.proof);
    }
    // A slip far from the lines cited is no near miss.
    let far = project();
    let mut text = "fn ratio(a: u32, b: u32) -> u32 { a / b }\n".to_string();
    text.push_str(&"// nothing\n".repeat(100));
    std::fs::write(far.path().join("src/div.rs"), text).unwrap();
    let src = sources(far.path(), &files);
    let f = finding(
        "src/div.rs",
        90,
        90,
        "fn ratio(a: u32, b: u32) -> u32 { a // b }",
    );
    assert!(one(&src, f).is_err());
    let f = finding(
        "src/div.rs",
        20,
        20,
        "fn ratio(a: u32, b: u32) -> u32 { a // b }",
    );
    assert!(one(&src, f).is_ok());
}

#[test]
fn a_hostile_quote_is_settled_without_square_work() {
    let d = project();
    let files = vec![];
    let src = sources(d.path(), &files);
    // A megabyte that is nothing like the file: proven absent.
    let huge = "x = compute(1); ".repeat(1 << 16);
    let r = one(&src, finding("src/a.rs", 10, 10, &huge));
    assert_eq!(r.unwrap_err().cause, "evidence_not_found");
    // The file's own text, with a slip in every line, without line numbers
    // (the whole file is compared): not settled within the budget, or near;
    // either way kept.
    let big: String = (0..4000)
        .map(|i| format!("    let v{i} = compute({i}));\n"))
        .collect();
    std::fs::write(d.path().join("src/big.rs"), big.replace("));", ");")).unwrap();
    let mut f = finding("src/big.rs", 1, 1, &big);
    f.location = Some(Location::File {
        path: "src/big.rs".into(),
        line_start: None,
        line_end: None,
    });
    let kept = one(&src, f).unwrap();
    assert_eq!(
        kept.verification.unwrap().outcome,
        VerificationOutcome::Unchecked
    );
}

#[test]
fn the_exact_comparison_stays_exact() {
    // What may prove code is there (the verifier's disproof) takes no look-alike,
    // no invisible character and no slip.
    let d = project();
    std::fs::write(
        d.path().join("src/k.rs"),
        "if is_admin(user) { grant(); }\nlet na\u{200B}me = 1;\n",
    )
    .unwrap();
    let files = vec![];
    let src = sources(d.path(), &files);
    for quote in [
        "if is_\u{0430}dmin(user) { grant(); }",
        "if is_admin(user) { grant() }",
        "let name = 1;",
        "if is_admin(user)\u{200B} { grant(); }",
    ] {
        assert!(
            matches!(locate(&src, "src/k.rs", quote), Found::NotThere(_)),
            "{quote}"
        );
    }
    assert!(matches!(
        locate(&src, "src/k.rs", "if is_admin(user) { grant(); }"),
        Found::There(_)
    ));
}
