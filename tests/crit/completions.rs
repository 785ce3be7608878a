//! `crit completions SHELL` and `crit man`: scripts each shell accepts, naming
//! crit's commands and flags (new ones included), and man pages groff reads
//! without a warning.

use std::process::Command as Process;

use assert_cmd::Command;

fn crit(args: &[&str]) -> String {
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "crit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_shell_gets_a_script_that_knows_crits_commands() {
    for (shell, marker) in [
        ("bash", "complete -F _crit"),
        ("zsh", "#compdef crit"),
        ("fish", "complete -c crit"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[crit]"),
    ] {
        let script = crit(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {marker}");
        for word in ["review", "report", "merge", "--fail-on"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
        // The shells that complete values know the new formats too.
        if matches!(shell, "bash" | "zsh" | "fish") {
            assert!(script.contains("codeclimate"), "{shell}");
        }
    }
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_bash_script_parses_and_completes_a_subcommand() {
    let script = crit(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crit.bash");
    std::fs::write(&path, &script).unwrap();
    // Load it and ask for completions of `crit rep`, as bash would on TAB.
    let probe = format!(
        "source '{}'; COMP_WORDS=(crit rep); COMP_CWORD=1; COMP_LINE='crit rep'; COMP_POINT=8; _crit crit rep crit; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Process::new("bash").args(["-c", &probe]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "report");
}

#[test]
fn man_pages_for_crit_and_each_command() {
    let page = crit(&["man"]);
    assert!(
        page.contains(".TH crit 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    assert!(page.contains("completions"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    crit(&["man", "--dir", out.to_str().unwrap()]);
    for name in [
        "crit.1",
        "crit-review.1",
        "crit-report.1",
        "crit-report-merge.1",
        "crit-completions.1",
    ] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(text.starts_with(".ie"), "{name}");
    }
    match Process::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(out.join("crit-report-merge.1"))
        .output()
    {
        Ok(o) => {
            assert!(o.status.success());
            assert_eq!(String::from_utf8_lossy(&o.stderr), "", "groff warnings");
        }
        Err(_) => eprintln!("notice: groff not installed; man pages checked for content only"),
    }
}

/// What bash offers for `words` (the line so far, the last word being
/// completed), with the script `crit completions bash` printed in `dir`.
fn bash_complete(dir: &std::path::Path, words: &[&str]) -> Vec<String> {
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["completions", "bash"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = dir.join("crit.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let line = words.join(" ");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let probe = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT={}; _crit crit '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        line.len(),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = Process::new("bash").args(["-c", &probe]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

const PROJECT_TEMPLATE: &str = r#"name: security
description: "Security review of a document"
system_prompt: "You review for security."
prompt_template: "Review {input}."
allowed_tools: [Read, Glob, Grep]
inputs:
  required:
    - name: input
      description: "The document"
"#;

#[test]
fn completions_offer_the_templates_and_each_commands_own_flags() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join(".crit/templates")).unwrap();
    std::fs::write(d.join(".crit/templates/security.yaml"), PROJECT_TEMPLATE).unwrap();
    // `crit review <TAB>`: the built-in templates and the project's.
    let templates = bash_complete(d, &["crit", "review", ""]);
    for t in ["list", "code", "arch", "tasks", "security"] {
        assert!(templates.iter().any(|w| w == t), "{t} in {templates:?}");
    }
    // `crit review code --<TAB>`: the code review's own flags.
    let code = bash_complete(d, &["crit", "review", "code", "--"]);
    for flag in [
        "--diff",
        "--uncommitted",
        "--filter",
        "--shard",
        "--commit",
        "--provider",
    ] {
        assert!(code.iter().any(|w| w == flag), "{flag} in {code:?}");
    }
    let arch = bash_complete(d, &["crit", "review", "arch", "--"]);
    assert!(arch.iter().any(|w| w == "--against"), "{arch:?}");
    assert!(!arch.iter().any(|w| w == "--uncommitted"), "{arch:?}");
    // Nothing crit would refuse: `crit report` takes no backend flags.
    let report = bash_complete(d, &["crit", "report", "--"]);
    assert!(report.iter().any(|w| w == "--format"), "{report:?}");
    for refused in ["--provider", "--model", "--timeout"] {
        assert!(
            !report.iter().any(|w| w == refused),
            "{refused} in {report:?}"
        );
        let out = Command::cargo_bin("crit")
            .unwrap()
            .args(["report", "x.json", refused, "x"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "crit refuses {refused}");
    }
}

#[test]
fn crit_review_man_page_lists_the_code_reviews_flags() {
    let dir = tempfile::tempdir().unwrap();
    crit(&["man", "--dir", dir.path().to_str().unwrap()]);
    let page = std::fs::read_to_string(dir.path().join("crit-review.1")).unwrap();
    for flag in [
        "diff",
        "uncommitted",
        "filter",
        "shard",
        "commit",
        "max\\-findings",
    ] {
        assert!(
            page.contains(&format!("\\-\\-{flag}")),
            "crit-review(1) lacks --{flag}"
        );
    }
    assert!(page.contains("CRIT REVIEW CODE") && page.contains("CRIT REVIEW ARCH"));
    assert!(page.contains("\\-\\-against"));
    for name in [
        "crit-review-code.1",
        "crit-review-arch.1",
        "crit-review-list.1",
    ] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
    // -k: the page is UTF-8 (template descriptions have dashes), as man-db reads it.
    if let Ok(o) = Process::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .arg(dir.path().join("crit-review.1"))
        .output()
    {
        assert!(o.status.success());
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "groff warnings");
    }
}

#[test]
fn completions_install_where_the_shell_looks_creating_the_directory() {
    let home = tempfile::tempdir().unwrap();
    for (shell, rel) in [
        ("bash", ".local/share/bash-completion/completions/crit"),
        ("fish", ".config/fish/completions/crit.fish"),
    ] {
        let out = Command::cargo_bin("crit")
            .unwrap()
            .args(["completions", shell, "--install"])
            .env_clear()
            .env("HOME", home.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = home.path().join(rel);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            path.display().to_string()
        );
        assert!(std::fs::read_to_string(&path).unwrap().contains("crit"));
    }
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["completions", "zsh", "--install"])
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("$fpath"));
}
