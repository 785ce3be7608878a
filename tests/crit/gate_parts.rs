//! A change bigger than one request is split into parts; whatever no
//! reviewer received (parts over `--max-chunks`, a spent budget, a part a
//! reviewer did not finish, a line longer than a part) is listed in the
//! coverage and the review is INCOMPLETE unless `--allow-partial`. Each row
//! checks the gate's first invariant against what crit-testkit received.

use crate::support;

use crit_testkit::{FakeServer, Reply};
use support::gate;

fn big_file(tag: &str, lines: usize) -> Vec<u8> {
    (0..lines)
        .map(|i| {
            format!(
                "let {tag}_{i} = compute_{tag}({i}, \"padding padding padding padding padding\");\n"
            )
        })
        .collect::<String>()
        .into_bytes()
}

#[test]
fn what_no_reviewer_received_holds_the_gate() {
    let one_line: Vec<u8> =
        format!("const BLOB = \"{}\"; run(BLOB);\n", "ab".repeat(200_000)).into_bytes();
    type Setup = fn(&FakeServer);
    let all_pass: Setup = |s| gate::passes(s, 40);
    let fail_second: Setup = |s| {
        s.push(Reply::json(support::pass()));
        for _ in 0..10 {
            s.push(Reply::api_error(500, "api_error", "boom"));
        }
    };
    type Row = (
        &'static str,
        Vec<(&'static str, Vec<u8>)>,
        Vec<&'static str>,
        Setup,
    );
    let rows: Vec<Row> = vec![
        (
            "two big files, --max-chunks 1",
            vec![
                ("src/a.rs", big_file("a", 2300)),
                ("src/b.rs", big_file("b", 2300)),
            ],
            vec!["--max-chunks", "1"],
            all_pass,
        ),
        (
            "three big files, --max-chunks 2",
            vec![
                ("src/a.rs", big_file("a", 2300)),
                ("src/b.rs", big_file("b", 2300)),
                ("src/c.rs", big_file("c", 2300)),
            ],
            vec!["--max-chunks", "2"],
            all_pass,
        ),
        (
            "one file bigger than a part, --max-chunks 1",
            vec![("src/a.rs", big_file("a", 5000))],
            vec!["--max-chunks", "1"],
            all_pass,
        ),
        (
            "a single line longer than a part",
            vec![("src/min.js", one_line.clone())],
            vec![],
            all_pass,
        ),
        (
            "a single long line, --max-chunks 1",
            vec![("src/min.js", one_line), ("src/b.rs", big_file("b", 2300))],
            vec!["--max-chunks", "1"],
            all_pass,
        ),
        (
            "two parts, the second reviewer fails",
            vec![
                ("src/a.rs", big_file("a", 2300)),
                ("src/b.rs", big_file("b", 2300)),
            ],
            vec![],
            fail_second,
        ),
        (
            "a budget spent before the second part",
            vec![
                ("src/a.rs", big_file("a", 2300)),
                ("src/b.rs", big_file("b", 2300)),
            ],
            vec!["--max-budget-usd", "0.000001"],
            all_pass,
        ),
        (
            "many small files, --max-chunks 1",
            (0..80)
                .map(|i| {
                    (
                        Box::leak(format!("src/f{i}.rs").into_boxed_str()) as &str,
                        big_file(&format!("f{i}"), 60),
                    )
                })
                .collect(),
            vec!["--max-chunks", "1"],
            all_pass,
        ),
        (
            "--max-chunks 1 and a small change: all of it reviewed",
            vec![("src/a.rs", b"fn a() { b() }\n".to_vec())],
            vec!["--max-chunks", "1"],
            all_pass,
        ),
        (
            "two big files, enough parts",
            vec![
                ("src/a.rs", big_file("a", 2300)),
                ("src/b.rs", big_file("b", 2300)),
            ],
            vec![],
            all_pass,
        ),
    ];
    assert!(rows.len() >= 10);
    for (name, files, flags, setup) in rows {
        let files: Vec<(&str, Option<&[u8]>)> = files
            .iter()
            .map(|(p, b)| (*p, Some(b.as_slice())))
            .collect();
        let dir = gate::change_repo(&[], &files);
        let d = dir.path();
        let server = FakeServer::start_blocking();
        setup(&server);
        let mut args = vec!["--verify", "off"];
        args.extend(flags.iter().copied());
        let (out, r) = gate::gated(d, &server, &args);
        gate::assert_seen_or_held(name, d, &server, &out, &r);
        if r["passed"] != true {
            assert_eq!(r["coverage"]["complete"], false, "{name}: {r:#}");
        }
        let causes = gate::gap_causes(&r);
        let expect = if name.contains("--max-chunks 1 and a small")
            || name.contains("enough parts")
            || name == "a single line longer than a part"
        {
            None
        } else if name.contains("--max-chunks") {
            Some("max_chunks")
        } else if name.contains("fails") {
            Some("reviewer_failed")
        } else {
            Some("budget")
        };
        match expect {
            None => assert_eq!(r["passed"], true, "{name}: {causes:?}"),
            Some(c) => {
                assert!(causes.iter().any(|x| x == c), "{name}: {causes:?}");
                assert_ne!(out.status.code(), Some(0), "{name}");
            }
        }
        // Accepting a partial review passes what was seen, and still lists the rest.
        if r["coverage"]["complete"] == false {
            let server = FakeServer::start_blocking();
            setup(&server);
            args.push("--allow-partial");
            let (_, r2) = gate::gated(d, &server, &args);
            assert_eq!(r2["coverage"]["partial_allowed"], true, "{name}");
            assert!(!gate::gap_causes(&r2).is_empty(), "{name}: {r2:#}");
        }
    }
}
