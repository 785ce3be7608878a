//! A review template's custom prompt builder. The review templates' Python
//! builder (`prompt_builder: my.module.fn`) cannot be imported; ported as a
//! program (`prompt_builder: {command: [...]}`) it gets the inputs as JSON on
//! stdin and prints the prompt. A project's template runs it only once the
//! user trusts it; the user's own templates are the user's.

use crate::support;

use crit_testkit::{FakeServer, Reply};
use support::{crit, stderr, write};

/// The design's markdown-format template, its prompt built by a program.
fn template(command: &str) -> String {
    format!(
        "name: custom\ndescription: a custom builder\nsystem_prompt: |\n  Report findings using severity levels:\n\n  ## Summary\n  [overall assessment: PASS | CONCERNS | FAIL]\n\n  ## Findings\n\n  ### [PASS|CONCERN|FAIL] Finding title\n  Description.\nallowed_tools: [Read]\npermission_mode: bypassPermissions\ninputs:\n  required:\n    - name: input\n      description: what to review\n  optional:\n    - name: focus\n      description: where to look\n      default: errors\nprompt_builder: {command}\n"
    )
}

/// Prints the prompt from the inputs on stdin; fails when told to.
const BUILDER: &str = "#!/bin/sh\nread -r inputs\ncase \"$inputs\" in *fail*) echo 'no such file' >&2; exit 3;; esac\nprintf 'BUILT PROMPT for %s\\n' \"$inputs\"\n";

const ANSWER: &str = "## Summary\nPASS\n\n## Findings\n\n### [PASS] Fine\nNothing wrong.\n";

fn user_text(server: &FakeServer) -> String {
    let req = server.model_requests().pop().unwrap();
    req.body["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_builder_program_builds_the_prompt_once_the_project_template_is_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "slice.md", "# Slice\n");
    write(d, "tools/builder.sh", BUILDER);
    write(
        d,
        ".crit/templates/custom.yaml",
        &template("{command: [sh, tools/builder.sh]}"),
    );
    let server = FakeServer::start_blocking();
    // The checkout names a program: nothing runs before the user trusts it,
    // and the error says what to run.
    let out = crit(d, &server, None)
        .args(["review", "custom", "slice.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("its prompt_builder runs a program (sh tools/builder.sh)"),
        "{err}"
    );
    assert!(err.contains("run `crit trust`"), "{err}");
    assert!(server.model_requests().is_empty());
    // `crit trust` shows the program it allows.
    let trust = crit(d, &server, None)
        .args(["trust", "--yes"])
        .output()
        .unwrap();
    assert_eq!(trust.status.code(), Some(0), "{}", stderr(&trust));
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&trust.stdout),
        stderr(&trust)
    );
    assert!(shown.contains("prompt_builder"), "{shown}");
    assert!(shown.contains("tools/builder.sh"), "{shown}");

    server.push(Reply::text(ANSWER));
    let out = crit(d, &server, None)
        .args(["review", "custom", "slice.md", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let user = user_text(&server);
    assert!(
        user.contains(r#"BUILT PROMPT for {"focus":"errors","input":"slice.md"}"#),
        "{user}"
    );

    // A builder that fails stops the review before any model call, saying why.
    let asked = server.model_requests().len();
    let out = crit(d, &server, None)
        .args(["review", "custom", "fail.md"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains("prompt builder `sh tools/builder.sh` failed (exit 3): no such file"),
        "{err}"
    );
    assert_eq!(server.model_requests().len(), asked);

    // Changing the program is a new decision.
    write(
        d,
        ".crit/templates/custom.yaml",
        &template("{command: [sh, tools/other.sh]}"),
    );
    let out = crit(d, &server, None)
        .args(["review", "custom", "slice.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(server.model_requests().len(), asked);
}

#[test]
fn a_users_own_template_runs_its_builder_and_a_python_path_says_how_to_port_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "slice.md", "# Slice\n");
    write(d, "builder.sh", BUILDER);
    let builder = d.join("builder.sh");
    write(
        d,
        ".home/.config/crit/templates/custom.yaml",
        &template(&format!("{{command: [sh, '{}']}}", builder.display())),
    );
    let server = FakeServer::start_blocking();
    server.push(Reply::text(ANSWER));
    let out = crit(d, &server, None)
        .args(["review", "custom", "slice.md", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(user_text(&server).contains("BUILT PROMPT for"));

    write(
        d,
        ".home/.config/crit/templates/custom.yaml",
        &template("orchestration.review.builders.mine.build_prompt"),
    );
    let out = crit(d, &server, None)
        .args(["review", "custom", "slice.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("crit does not import Python: run your builder as a program, `prompt_builder: {command: [python3, path/to/builder.py]}`"),
        "{err}"
    );
}
