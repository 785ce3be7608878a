use super::*;

fn hits(text: &str, pat: &str) -> Vec<Range<usize>> {
    text.match_indices(pat)
        .map(|(i, m)| i..i + m.len())
        .collect()
}

fn run(text: &str, action: &FixAction, pat: &str) -> String {
    apply(text, action, &hits(text, pat)).unwrap().text
}

const SENT: FixAction = FixAction::RemoveSentence;
const PARA: FixAction = FixAction::RemoveParagraph;

#[test]
fn replace_every_hit_and_describe_it() {
    let e = apply(
        "a eval b eval",
        &FixAction::Replace {
            with: "JSON.parse".into(),
        },
        &hits("a eval b eval", "eval"),
    )
    .unwrap();
    assert_eq!(e.text, "a JSON.parse b JSON.parse");
    assert_eq!(e.description, "eval → JSON.parse (×2)");
    assert_eq!(e.line, 1);
    let e = apply(
        "x\n: any y",
        &FixAction::Replace {
            with: ": unknown".into(),
        },
        &hits("x\n: any y", ": any"),
    )
    .unwrap();
    assert_eq!(
        (e.text.as_str(), e.line, e.description.as_str()),
        ("x\n: unknown y", 2, ": any → : unknown")
    );
    // Overlapping hits (as Aho-Corasick reports them) are replaced once.
    let e = apply(
        "aaa",
        &FixAction::Replace { with: "b".into() },
        &[0..2, 1..3],
    )
    .unwrap();
    assert_eq!(e.text, "ba");
}

#[test]
fn remove_sentence_in_the_middle_start_and_end_of_a_paragraph() {
    let p = "Intro. We call console.log here. Outro.\n";
    assert_eq!(run(p, &SENT, "console.log"), "Intro. Outro.\n");
    assert_eq!(
        run("console.log first. Then more.\n", &SENT, "console.log"),
        "Then more.\n"
    );
    assert_eq!(
        run("Keep this. Drop console.log\n", &SENT, "console.log"),
        "Keep this.\n"
    );
    assert_eq!(
        run("Keep this! Drop console.log? Yes.\n", &SENT, "console.log"),
        "Keep this! Yes.\n"
    );
}

#[test]
fn remove_sentence_spanning_wrapped_lines() {
    let p = "First sentence is\nwrapped with console.log. Second\nsentence.\n";
    assert_eq!(run(p, &SENT, "console.log"), "Second\nsentence.\n");
    let p = "Keep.\nDrop console.log.\nKeep too.\n";
    assert_eq!(run(p, &SENT, "console.log"), "Keep.\nKeep too.\n");
}

#[test]
fn remove_sentence_ends_at_end_of_line_in_a_bullet_list() {
    let p = "- first item\n- uses console.log without period\n- third. Still third\n";
    assert_eq!(
        run(p, &SENT, "console.log"),
        "- first item\n- third. Still third\n"
    );
    let p = "- one. uses console.log. two\n";
    assert_eq!(run(p, &SENT, "console.log"), "- one. two\n");
    let p = "1. step one\n2. console.log it\n3. step three\n";
    assert_eq!(run(p, &SENT, "console.log"), "1. step one\n3. step three\n");
}

#[test]
fn remove_the_only_sentence_removes_the_paragraph() {
    let p = "# Plan\n\nAlpha.\n\nUse console.log.\n\nOmega.\n";
    assert_eq!(run(p, &SENT, "console.log"), "# Plan\n\nAlpha.\n\nOmega.\n");
    assert_eq!(
        run("Alpha.\n\nUse console.log.", &SENT, "console.log"),
        "Alpha.\n"
    );
}

#[test]
fn remove_sentence_with_two_hits_in_one_sentence_and_two_sentences() {
    let p = "A console.log and console.log. B. C console.log.\n";
    assert_eq!(run(p, &SENT, "console.log"), "B.\n");
}

#[test]
fn remove_paragraph_between_blank_lines() {
    let p = "# Plan\n\nKeep one.\nStill one.\n\nDrop eval here.\nAnd this line.\n\nKeep two.\n";
    assert_eq!(
        run(p, &PARA, "eval"),
        "# Plan\n\nKeep one.\nStill one.\n\nKeep two.\n"
    );
    assert_eq!(run("First.\n\nLast eval.\n", &PARA, "eval"), "First.\n");
    assert_eq!(run("eval first.\n\nSecond.\n", &PARA, "eval"), "Second.\n");
}

#[test]
fn remove_paragraph_takes_a_complete_bullet_point() {
    let p =
        "Steps:\n- keep\n- drop eval\n  continued line\n  - nested child\n- keep too\n\nAfter.\n";
    assert_eq!(
        run(p, &PARA, "eval"),
        "Steps:\n- keep\n- keep too\n\nAfter.\n"
    );
    let p = "- parent\n  - child with eval\n  - sibling\n- next\n";
    assert_eq!(run(p, &PARA, "eval"), "- parent\n  - sibling\n- next\n");
    let p = "* a\n* b eval\n\nTail.\n";
    assert_eq!(run(p, &PARA, "eval"), "* a\n\nTail.\n");
    let p = "1. one\n2. two eval\n3. three\n";
    assert_eq!(run(p, &PARA, "eval"), "1. one\n3. three\n");
}

#[test]
fn remove_paragraph_stops_at_a_list_and_a_heading() {
    let p = "## H\nIntro with eval:\n- item\n";
    assert_eq!(run(p, &PARA, "eval"), "## H\n- item\n");
}

#[test]
fn no_hits_no_edit() {
    assert!(apply("text", &SENT, &[]).is_none());
}

#[test]
fn user_replacement_replaces_the_matched_line() {
    let plan = "# Plan\nParse with eval(data) and eval(more).\r\nDone.\n";
    let e = replace_line(plan, 18..22, "Parse with JSON.parse(data).\n");
    assert_eq!(e.text, "# Plan\nParse with JSON.parse(data).\r\nDone.\n");
    assert_eq!(e.line, 2);
    assert_eq!(
        e.description,
        "Parse with eval(data) and eval(more). → Parse with JSON.parse(data). (user)"
    );
    let last = replace_line("a\nno eval", 5..9, "ok");
    assert_eq!(last.text, "a\nok");
    let last = replace_line("a\nno eval\r\n", 5..9, "ok");
    assert_eq!(last.text, "a\nok\r\n");
}
