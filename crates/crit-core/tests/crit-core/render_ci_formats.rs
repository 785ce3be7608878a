//! The CI formats by their consumers' rules: GitHub workflow commands as the
//! runner parses them (one command per line, properties and data escaped as
//! actions/toolkit does), and JUnit XML read with a real XML parser (the
//! structure CI tools read, counts that add up). Hostile titles and bodies
//! (newlines, `::`, `%`, `,`, quotes, markup, escape sequences) round-trip
//! without breaking either.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fixtures;
use crit_core::render::{Format, RenderOptions, render};
use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};

fn opts() -> RenderOptions {
    RenderOptions::default()
}

/// A workflow command as the runner reads one line (actions/runner
/// `ActionCommand.TryParseV2`): `::name k=v,k=v::data`.
#[derive(Debug)]
struct Command {
    name: String,
    props: Vec<(String, String)>,
    data: String,
}

fn parse_line(line: &str) -> Option<Command> {
    let rest = line.strip_prefix("::")?;
    let end = rest.find("::")?;
    let (info, data) = (&rest[..end], &rest[end + 2..]);
    let (name, props) = match info.split_once(' ') {
        Some((n, p)) => (n, p),
        None => (info, ""),
    };
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), unescape_property(v))
        })
        .collect();
    Some(Command {
        name: name.to_string(),
        props,
        data: unescape_data(data),
    })
}

fn unescape_data(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
}

fn unescape_property(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

fn commands(text: &str) -> Vec<Command> {
    text.lines()
        .map(|l| parse_line(l).unwrap_or_else(|| panic!("not a workflow command: {l:?}")))
        .collect()
}

fn prop<'a>(c: &'a Command, key: &str) -> Option<&'a str> {
    c.props
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn github_lines_are_workflow_commands_the_runner_understands() {
    let r = fixtures::rich();
    let cmds = commands(&render(&r, Format::Github, &opts()));
    assert_eq!(
        cmds.len(),
        r.findings.len() + 1,
        "one per finding, then the verdict"
    );
    let names: Vec<&str> = cmds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["error", "error", "warning", "notice", "notice", "error"]
    );
    for c in &cmds {
        for (k, _) in &c.props {
            assert!(
                ["file", "line", "endLine", "title"].contains(&k.as_str()),
                "{k}"
            );
        }
    }
    let first = &cmds[0];
    assert_eq!(prop(first, "file"), Some("api/search.go"));
    assert_eq!(prop(first, "line"), Some("88"));
    assert_eq!(prop(first, "endLine"), Some("95"));
    assert_eq!(
        prop(first, "title"),
        Some("P0 SQL injection in search handler (crit/security)")
    );
    assert_eq!(
        first.data,
        "`q` is interpolated into the query string.\nUse a bound parameter."
    );
    let verdict = cmds.last().unwrap();
    assert_eq!(prop(verdict, "title"), Some("crit code: FAIL"));
    assert!(
        verdict.data.ends_with("gate not passed"),
        "{}",
        verdict.data
    );
    // A passing review ends on a notice; an unparseable one on an error that says why.
    let clean = commands(&render(&fixtures::clean(), Format::Github, &opts()));
    assert_eq!(clean.len(), 1);
    assert_eq!(clean[0].name, "notice");
    let broken = commands(&render(&fixtures::unparseable(), Format::Github, &opts()));
    assert_eq!(broken[0].name, "error");
    assert!(
        broken[0]
            .data
            .starts_with("The review did not complete: invalid json"),
        "{}",
        broken[0].data
    );
}

/// Text as crit shows it: control and hidden characters as `<U+XXXX>`.
fn shown(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\x1b' | '\x07' | '\r' | '\u{202E}' => format!("<U+{:04X}>", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

fn hostile() -> ReviewResult {
    let titles = [
        "evil\n::error file=x.rs,line=1::injected",
        "100% broken: a,b::c",
        "%0A already encoded %25",
        "carriage\rreturn\r\n::add-mask::secret",
        "quote \" apostrophe ' <tag> & amp ]]>",
        "\x1b]0;retitle\x07 bell \u{202E} bidi",
        "::stop-commands::token",
    ];
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.summary = "sum\n::warning::mary %0A".into();
    for (i, t) in titles.iter().enumerate() {
        r.findings.push(
            Finding::new(*t, Severity::P1, "rev,iewer:x")
                .with_body(format!("body {i}\n::error::also injected\r\n%"))
                .with_location(Location::lines(format!("dir:{i},x%/a b.rs"), 5, 7)),
        );
    }
    r.apply_gate(crit_core::FailOn::default());
    r
}

#[test]
fn github_escaping_keeps_hostile_titles_inside_their_own_annotation() {
    let r = hostile();
    let text = render(&r, Format::Github, &opts());
    let cmds = commands(&text);
    assert_eq!(
        cmds.len(),
        r.findings.len() + 1,
        "no text started a command of its own:\n{text}"
    );
    assert!(cmds[..r.findings.len()].iter().all(|c| c.name == "error"));
    for (c, f) in cmds.iter().zip(r.sorted_findings()) {
        let title = prop(c, "title").unwrap();
        let one_line = f
            .display_title()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let want = shown(&one_line);
        assert_eq!(title, format!("P1 {want} (crit/rev,iewer:x)"));
        assert!(!title.chars().any(|c| c.is_control()), "{title:?}");
        let file = shown(f.path().unwrap());
        assert_eq!(prop(c, "file"), Some(file.as_str()));
        assert_eq!(prop(c, "line"), Some("5"));
        assert_eq!(c.props.len(), 4, "{:?}", c.props);
        assert!(c.data.starts_with("body "), "{:?}", c.data);
        // The data reads back as written: the runner decodes it into the
        // annotation, never into a command.
        assert!(
            c.data.contains("\n::error::also injected\r\n%"),
            "{:?}",
            c.data
        );
    }
    // No raw line break, carriage return or escape inside any command.
    for line in text.lines() {
        assert!(!line.contains('\r') && !line.contains('\u{1b}'), "{line:?}");
    }
    assert!(
        cmds.last()
            .unwrap()
            .data
            .starts_with("sum\n::warning::mary %0A")
    );
}

fn xml(text: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("not well-formed XML ({e}):\n{text}"))
}

fn count(node: roxmltree::Node<'_, '_>, attr: &str) -> usize {
    node.attribute(attr)
        .unwrap_or_else(|| panic!("<{}> has no {attr}", node.tag_name().name()))
        .parse()
        .unwrap()
}

fn children<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(move |c| c.has_tag_name(name))
}

/// The structure and counts JUnit readers rely on; returns the test cases.
fn check_junit(text: &str) -> Vec<(String, Option<String>)> {
    let doc = xml(text);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let mut cases = Vec::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for suite in children(root, "testsuite") {
        let mut s = (0, 0, 0);
        for case in children(suite, "testcase") {
            assert!(case.attribute("name").is_some_and(|n| !n.is_empty()));
            assert!(case.attribute("classname").is_some());
            let outcome = case
                .children()
                .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"));
            s.0 += 1;
            match outcome.map(|o| o.tag_name().name()) {
                Some("failure") => s.1 += 1,
                Some("error") => s.2 += 1,
                _ => {}
            }
            if let Some(o) = outcome {
                assert!(o.attribute("message").is_some() && o.attribute("type").is_some());
            }
            cases.push((
                case.attribute("name").unwrap().to_string(),
                outcome.map(|o| o.tag_name().name().to_string()),
            ));
        }
        assert_eq!(
            (
                count(suite, "tests"),
                count(suite, "failures"),
                count(suite, "errors")
            ),
            s,
            "suite counts"
        );
        assert_eq!(count(suite, "skipped"), 0);
        tests += s.0;
        failures += s.1;
        errors += s.2;
    }
    assert_eq!(
        (
            count(root, "tests"),
            count(root, "failures"),
            count(root, "errors")
        ),
        (tests, failures, errors),
        "testsuites counts"
    );
    cases
}

#[test]
fn junit_is_well_formed_and_its_counts_add_up() {
    let rich = check_junit(&render(&fixtures::rich(), Format::Junit, &opts()));
    assert_eq!(rich.len(), 6);
    assert_eq!(
        rich[0],
        ("crit code: verdict".into(), Some("failure".into()))
    );
    let outcomes: Vec<Option<&str>> = rich.iter().map(|(_, o)| o.as_deref()).collect();
    assert_eq!(
        outcomes,
        [
            Some("failure"),
            Some("failure"),
            Some("failure"),
            Some("failure"),
            Some("failure"),
            None
        ],
        "{rich:?}"
    );
    assert_eq!(
        check_junit(&render(&fixtures::clean(), Format::Junit, &opts())),
        [("crit arch: verdict".to_string(), None)]
    );
    // A result whose gate let its findings through (`--fail-on never`) is a
    // green run: its findings are notes, not failures.
    let mut let_through = fixtures::rich();
    let_through.apply_gate(crit_core::FailOn::Never);
    assert!(let_through.passed);
    let text = render(&let_through, Format::Junit, &opts());
    let cases = check_junit(&text);
    assert_eq!(cases.len(), 6);
    assert!(cases.iter().all(|(_, o)| o.is_none()), "{cases:?}");
    assert!(text.contains("failures=\"0\" errors=\"0\""), "{text}");
    let broken = check_junit(&render(&fixtures::unparseable(), Format::Junit, &opts()));
    assert_eq!(
        broken[0].1.as_deref(),
        Some("error"),
        "an incomplete review is an error"
    );
    let text = render(&fixtures::rich(), Format::Junit, &opts());
    let doc = xml(&text);
    let case = doc
        .descendants()
        .find(|n| n.attribute("file") == Some("db/pool.go"))
        .unwrap();
    assert_eq!(case.attribute("line"), Some("41"));
    assert_eq!(case.attribute("classname"), Some("crit.code.correctness"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("timestamp"), Some("2026-11-21T13:05:09"));
    assert_eq!(suite.attribute("time"), Some("5.100"));
}

#[test]
fn junit_keeps_hostile_text_as_text() {
    let r = hostile();
    let text = render(&r, Format::Junit, &opts());
    let cases = check_junit(&text);
    assert_eq!(cases.len(), r.findings.len() + 1);
    let doc = xml(&text);
    let names: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .skip(1)
        .map(|n| n.attribute("name").unwrap().to_string())
        .collect();
    for (name, f) in names.iter().zip(r.sorted_findings()) {
        let title = shown(f.display_title());
        assert!(
            name.starts_with(&format!("P1 {title} (")),
            "{name:?} vs {title:?}"
        );
    }
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure") && n.attribute("type") == Some("P1"))
        .unwrap();
    assert!(failure.text().unwrap().contains("::error::also injected"));
}
