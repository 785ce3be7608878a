use super::*;

#[test]
fn line_numbers() {
    let l = Lines::new("a\nbb\n\nc");
    assert_eq!(
        (
            l.number_of(0),
            l.number_of(2),
            l.number_of(5),
            l.number_of(6)
        ),
        (1, 2, 3, 4)
    );
    assert_eq!(l.count(), 4);
    assert_eq!(Lines::new("a\n").count(), 1);
}

fn sentence<'a>(text: &'a str, needle: &str) -> &'a str {
    let s = Structure::new(text);
    let at = text.find(needle).unwrap();
    &text[s.sentence_at(text, at)]
}

#[test]
fn seed_sentence_boundaries() {
    assert_eq!(sentence("One. Two here. Three.", "here"), "Two here. ");
    assert_eq!(sentence("One.\nTwo here.\nThree.", "here"), "Two here.\n");
    assert_eq!(sentence("Why? Two here! Three", "here"), "Two here! ");
    assert_eq!(
        sentence("Version 3.14 is here. Next", "here"),
        "Version 3.14 is here. "
    );
    assert_eq!(sentence("e.g. this here. Next", "here"), "this here. ");
    assert_eq!(
        sentence("- item one here\n- item two", "here"),
        "item one here"
    );
    assert_eq!(
        sentence("Para one here\n\nPara two.", "here"),
        "Para one here"
    );
    assert_eq!(
        sentence("## Heading here\nText.", "here"),
        "## Heading here"
    );
}

#[test]
fn paragraphs_and_bullets() {
    let t = "P1 a\nP1 b\n\n- b1\n  cont\n  - nested\n- b2\n\n```\ncode\n\nmore\n```\n";
    let s = Structure::new(t);
    let para = |needle: &str| &t[s.paragraph_at(t.find(needle).unwrap())];
    assert_eq!(para("P1 b"), "P1 a\nP1 b\n");
    assert_eq!(para("cont"), "- b1\n  cont\n  - nested\n");
    assert_eq!(para("nested"), "  - nested\n");
    assert_eq!(para("b2"), "- b2\n");
    assert_eq!(para("more"), "```\ncode\n\nmore\n```\n");
}
