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
