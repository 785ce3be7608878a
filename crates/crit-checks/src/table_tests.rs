use super::*;

fn pairs(rows: &[Row]) -> Vec<(&str, &str)> {
    rows.iter()
        .map(|r| (r.pattern.as_str(), r.reason.as_str()))
        .collect()
}

#[test]
fn claude_md_standard_table_from_the_seed() {
    let md = "# Project\n\n## Anti-Patterns Table\n\n| If you write... | STOP because... |\n|-----------------|-----------------|\n| `eval()` | Security risk — use JSON.parse or safer alternatives |\n| `SELECT *` | Performance issue — specify columns explicitly |\n\nMore prose.\n";
    let rows = parse(md, Flavor::ClaudeMd);
    assert_eq!(
        pairs(&rows),
        vec![
            (
                "eval()",
                "Security risk — use JSON.parse or safer alternatives"
            ),
            ("SELECT *", "Performance issue — specify columns explicitly"),
        ]
    );
    assert_eq!(rows[0].line, 7);
}

#[test]
fn header_is_case_insensitive_and_whitespace_flexible() {
    for header in [
        "| If you write... | STOP because... |",
        "|if you write...|stop because...|",
        "|   IF   YOU   WRITE…   |   Stop Because   |",
        "| **If you write** | STOP because |",
        "If you write... | STOP because...",
    ] {
        let md = format!("{header}\n|---|---|\n| `x` | y |\n");
        assert_eq!(
            pairs(&parse(&md, Flavor::ClaudeMd)),
            vec![("x", "y")],
            "{header}"
        );
    }
}

#[test]
fn claude_md_ignores_rules_headers_and_third_column() {
    let md = "| Code Pattern | Problem |\n|---|---|\n| `a` | b |\n\n| If you write... | STOP because... | Fix |\n|---|---|---|\n| `c` | d | e |\n";
    assert_eq!(pairs(&parse(md, Flavor::ClaudeMd)), vec![("c", "d")]);
}

#[test]
fn rules_example_from_the_seed() {
    let md = "## Loop Diagram Triggers\n| Code Pattern | Problem | Fix |\n|---|---|---|\n| `G(p+q)` | Two propagators = loop diagram | See §GATEKEEPER.7 |\n";
    assert_eq!(
        pairs(&parse(md, Flavor::Rules)),
        vec![(
            "G(p+q)",
            "Loop Diagram Triggers: Two propagators = loop diagram. See §GATEKEEPER.7"
        )]
    );
}

#[test]
fn every_rules_header_format() {
    let md = "\
| If you write... | STOP because... |
|---|---|
| `a1` | r1 |

| Code Pattern | Problem |
|---|---|
| `a2` | r2 |

| Text Pattern | Problem |
| --- | --- |
| very unique | r3 |

| Pattern | Why |
|:--|--:|
| `a4` | r4 |

| Old | New |
|-----|-----|
| `old_fn()` | `new_fn()` |

| Name | Value |
|---|---|
| `not` | a pattern table |
";
    assert_eq!(
        pairs(&parse(md, Flavor::Rules)),
        vec![
            ("a1", "r1"),
            ("a2", "r2"),
            ("very unique", "r3"),
            ("a4", "r4"),
            ("old_fn()", "Use new_fn() instead")
        ]
    );
}

#[test]
fn section_prefix_uses_nearest_heading_and_hint_punctuation() {
    let md = "# Title\n## Prose Smells\n| Text Pattern | Problem | Fix |\n|---|---|---|\n| clearly | Weasel word. | Cut it |\n| `x` | | Use y |\n| `z` | Bad |  |\n";
    assert_eq!(
        pairs(&parse(md, Flavor::Rules)),
        vec![
            ("clearly", "Prose Smells: Weasel word. Cut it"),
            ("x", "Prose Smells: Use y"),
            ("z", "Prose Smells: Bad"),
        ]
    );
}

#[test]
fn backticks_and_escaped_pipes() {
    let md = "| Code Pattern | Problem |\n|---|---|\n| `a \\| b` | pipes |\n| `x || y` | or |\n| `` `tick` `` | double |\n| `eval()` or `exec()` | two spans |\n|  ` padded `  | pad |\n";
    assert_eq!(
        pairs(&parse(md, Flavor::Rules)),
        vec![
            ("a | b", "pipes"),
            ("x || y", "or"),
            ("`tick`", "double"),
            ("eval() or exec()", "two spans"),
            ("padded", "pad")
        ]
    );
}

#[test]
fn table_ends_at_blank_or_non_table_line() {
    let md =
        "| If you write... | STOP because... |\n|---|---|\n| `a` | b |\nplain text\n| `c` | d |\n";
    assert_eq!(pairs(&parse(md, Flavor::ClaudeMd)), vec![("a", "b")]);
}

#[test]
fn tables_in_code_fences_are_examples() {
    let md = "```markdown\n| If you write... | STOP because... |\n|---|---|\n| `a` | b |\n```\n\n| If you write... | STOP because... |\n|---|---|\n| `c` | d |\n";
    assert_eq!(pairs(&parse(md, Flavor::ClaudeMd)), vec![("c", "d")]);
}

#[test]
fn messy_rows_never_panic_and_empty_patterns_are_skipped() {
    let md = "| If you write... | STOP because... |\n|---|---|\n| | empty |\n| `unclosed | reason |\n|`|`|\n| only-one-cell |\n| ü | ✓ |\n";
    let rows = parse(md, Flavor::ClaudeMd);
    assert_eq!(
        pairs(&rows),
        vec![
            ("unclosed", "reason"),
            ("|", ""),
            ("only-one-cell", ""),
            ("ü", "✓")
        ]
    );
}
