//! A reviewer's quote that differs from the file only in what nobody sees
//! (a zero-width space, a BOM, a soft hyphen, a no-break space, a bidi mark,
//! a Cyrillic letter for a Latin one), on either side, or by one slip of the
//! keyboard, proves nothing against the finding: a true blocker stays in
//! `findings` and fails the gate. Only a quote nothing like the code near
//! the lines it cites is `evidence_not_found`.

use super::{GUARD, SINK, assert_kept_p0, fail, p0, repo_with, run};

use crit_testkit::FakeServer;

/// `text` with `what` put in before the first `at`.
fn with(text: &str, at: &str, what: &str) -> String {
    text.replacen(at, &format!("{what}{at}"), 1)
}

#[test]
fn invisible_characters_and_slips_keep_a_true_blocker() {
    let division = "return a / b;";
    // (what, the line the change adds, the reviewer's quote)
    let rows: Vec<(&str, String, String)> = vec![
        (
            "a zero-width space in the file's line",
            with(SINK, "me);", "\u{200B}"),
            SINK.into(),
        ),
        (
            "a zero-width space in the quote",
            SINK.into(),
            with(SINK, "query", "\u{200B}"),
        ),
        (
            "a zero-width joiner in the quote",
            SINK.into(),
            with(SINK, "ELECT", "\u{200D}"),
        ),
        (
            "a zero-width joiner in the file's line",
            with(SINK, "FROM", "\u{200D}"),
            SINK.into(),
        ),
        (
            "a byte order mark inside the file's line",
            with(SINK, "users", "\u{FEFF}"),
            SINK.into(),
        ),
        (
            "a byte order mark before the quote",
            SINK.into(),
            format!("\u{FEFF}{SINK}"),
        ),
        (
            "a soft hyphen in the quote",
            SINK.into(),
            with(SINK, "ry =", "\u{00AD}"),
        ),
        (
            "a soft hyphen in the file's line",
            with(SINK, "ry =", "\u{00AD}"),
            SINK.into(),
        ),
        (
            "a no-break space in the quote",
            SINK.into(),
            SINK.replacen(' ', "\u{00A0}", 2),
        ),
        (
            "a no-break space in the file's line",
            SINK.replacen(' ', "\u{00A0}", 2),
            SINK.into(),
        ),
        (
            "a right-to-left mark in the file's line",
            with(SINK, "'{}'", "\u{200F}"),
            SINK.into(),
        ),
        (
            "a right-to-left mark in the quote",
            SINK.into(),
            with(SINK, "'{}'", "\u{200F}"),
        ),
        (
            "a Cyrillic а for a Latin a in the quote",
            SINK.into(),
            SINK.replacen("format", "form\u{0430}t", 1),
        ),
        (
            "a Cyrillic а for a Latin a in the file's line",
            SINK.replacen("name)", "n\u{0430}me)", 1),
            SINK.into(),
        ),
        (
            "a Greek ο for a Latin o in the quote",
            SINK.into(),
            SINK.replacen("FROM", "FRΟM", 1),
        ),
        (
            "fullwidth letters in the quote",
            SINK.into(),
            SINK.replacen("let", "ｌｅｔ", 1),
        ),
        ("`//` for `/`", division.into(), "return a // b;".into()),
        (
            "a dropped character",
            SINK.into(),
            SINK.replacen("users", "user", 1),
        ),
        (
            "a swapped letter",
            SINK.into(),
            SINK.replacen("query", "qeury", 1),
        ),
        (
            "a swapped letter in a short line",
            division.into(),
            "retrun a / b;".into(),
        ),
        (
            "a changed character",
            SINK.into(),
            SINK.replacen("'{}'", "\"{}\"", 1),
        ),
    ];
    assert!(rows.len() >= 10);
    for (name, added, quote) in rows {
        let dir = repo_with(&added, b"", false);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        server.push(fail(p0("src/auth.rs", 12, &quote)));
        let (out, r) = run(d, &server, &[]);
        assert_kept_p0(name, &out, &r);
        let f = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["title"] == "SQL built from user input")
            .unwrap();
        // Not equal as written (white space never mattered): the finding
        // says so.
        if !name.contains("no-break space") {
            let body = f["body"].as_str().unwrap();
            assert!(body.contains("_crit: the quote"), "{name}: {f:#}");
        }
    }
}

#[test]
fn a_quote_nothing_like_the_code_is_still_dismissed() {
    for (name, quote) in [
        ("other code", "eval(request.body)".to_string()),
        (
            "another query",
            "let query = sqlx::query!(\"SELECT * FROM users WHERE id = ?\", id);".into(),
        ),
        (
            "a call the code does not make",
            GUARD.replacen(";", ".unwrap();", 1),
        ),
        (
            "look-alike letters of other code",
            "\u{0435}val(request.body)".into(),
        ),
        (
            "other code with invisible characters",
            "ev\u{200B}al(request\u{00AD}.body)".into(),
        ),
    ] {
        let dir = repo_with(SINK, b"", false);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        server.push(fail(p0("src/auth.rs", 12, &quote)));
        let (out, r) = run(d, &server, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {r:#}");
        let dis = &r["dismissed"][0];
        assert_eq!(dis["cause"], "evidence_not_found", "{name}: {r:#}");
        assert!(
            dis["proof"].as_str().unwrap().contains("one edit in ten"),
            "{name}: {dis:#}"
        );
    }
}
