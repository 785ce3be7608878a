//! `crit plan` writes each file it changed once, at the end of its checks:
//! killed in the middle (here at a question, after a fix was made), it
//! leaves the plan, its sealed state and the lock as a finished run left
//! them, and the next run goes on from there. Runs the binary under a
//! pseudo-terminal made by util-linux `script` (a test dependency, like git)
//! so that it waits at the question.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const CHECKS: &str = "checks:\n  - id: no_eval\n    pattern: \"eval()\"\n    fix: {action: replace, with: \"JSON.parse()\"}\n  - id: judgment\n    pattern: \"ambiguous thing\"\n    reason: \"Requires human judgment\"\n";

fn session() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("plan.md"), "Use eval() on the ambiguous thing.\n").unwrap();
    fs::write(
        dir.join("context.yaml"),
        "reviewer_persona: \"Performance architect\"\n",
    )
    .unwrap();
    fs::write(dir.join("checks.yaml"), CHECKS).unwrap();
    (tmp, dir)
}

fn plan(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crit"))
        .arg("plan")
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("CRIT_PROVIDER")
        .env_remove("CRIT_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("PATH", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `crit plan DIR` under a pty, killed (SIGKILL) once it asks its question.
fn killed_at_the_question(home: &Path, dir: &Path) -> String {
    // The shell says its pid, then becomes crit: the pid to kill.
    let cmd = format!(
        "sh -c 'echo CRIT_PID=$$; exec \"{}\" plan \"{}\"'",
        env!("CARGO_BIN_EXE_crit"),
        dir.display()
    );
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("ANTHROPIC_API_KEY")
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut seen = String::new();
    let mut pid = None;
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while lines.read_line(&mut line).unwrap_or(0) > 0 {
        if let Some(p) = line.trim().strip_prefix("CRIT_PID=") {
            pid = p.parse::<i32>().ok();
        }
        seen.push_str(&line);
        if line.contains("Abort review") {
            break;
        }
        line.clear();
    }
    let pid = pid.unwrap_or_else(|| panic!("no pid: {seen}"));
    let killed = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success(), "{seen}");
    drop(stdin);
    let _ = child.wait();
    seen
}

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn killed_mid_run_the_plan_its_seal_and_the_lock_stay_whole() {
    assert!(
        have_script(),
        "this test needs util-linux `script` for its pseudo-terminal"
    );
    let (tmp, dir) = session();
    let home = tmp.path();
    let d = dir.display().to_string();
    // A finished run: the fix written, the question pending, the state sealed.
    let first = plan(home, &[&d]);
    let plan_after = fs::read_to_string(dir.join("plan.md")).unwrap();
    assert_eq!(plan_after, "Use JSON.parse() on the ambiguous thing.\n");
    let state = fs::read(dir.join("state.yaml")).unwrap();
    assert!(
        String::from_utf8_lossy(&first.stdout).contains("ambiguous thing"),
        "{}",
        String::from_utf8_lossy(&first.stdout)
    );
    // The user adds a line the checks fix; the next run makes that fix, then
    // asks, and dies there.
    let edited = format!("{plan_after}Then eval() the input.\n");
    fs::write(dir.join("plan.md"), &edited).unwrap();
    let seen = killed_at_the_question(home, &dir);
    assert!(seen.contains("Requires human judgment"), "{seen}");
    // Nothing of the killed run was written: the plan as the user left it,
    // the state as the finished run sealed it, no temp file beside them.
    assert_eq!(fs::read_to_string(dir.join("plan.md")).unwrap(), edited);
    assert_eq!(fs::read(dir.join("state.yaml")).unwrap(), state);
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with('.') || n == ".lock" || n.ends_with(".lock")),
        "{names:?}"
    );
    // The lock died with the run; the seal still holds: the next run goes on.
    let next = plan(home, &[&d, "--answer", "judgment=approve"]);
    let out = String::from_utf8_lossy(&next.stdout);
    assert_eq!(
        next.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(out.starts_with("APPROVED"), "{out}");
    assert_eq!(
        fs::read_to_string(dir.join("plan.md")).unwrap(),
        "Use JSON.parse() on the ambiguous thing.\nThen JSON.parse() the input.\n"
    );
    assert!(dir.join("plan.approved").exists());
}
