//! Running a checked command: no shell, cwd the project root, stdin empty, a
//! minimal environment, its own process group, capped output, and a timeout.
//!
//! Processes are run by [`crate::process`], which kills the whole process group
//! on timeout or cancellation.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::confine::Roots;
use crate::context::ToolContext;
use crate::process::{self, Captured, Ended, Spawn};
use crate::tool::ToolOutput;

use super::git;
use super::policy::CheckedCommand;
use crate::git_hardening::filter_overrides;

/// Time git's own preflight queries (work tree, filter drivers) may take.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the command and renders what the model sees.
pub(super) async fn run(cmd: &CheckedCommand, cx: &ToolContext, timeout: Duration) -> ToolOutput {
    let mut args = cmd.args.clone();
    if cmd.program == "git" {
        match git_preflight(cx).await {
            Ok(extra) => args.splice(0..0, extra),
            Err(msg) => return ToolOutput::error(msg),
        };
    }
    let out_cap = cx.limits.max_output_bytes * 3 / 4;
    let err_cap = cx.limits.max_output_bytes - out_cap;
    match spawn_capture(&cmd.program, &args, cx, timeout, (out_cap, err_cap)).await {
        Ok(c) => render(&cmd.program, &c, timeout),
        Err(e) => ToolOutput::error(format!("cannot run `{}`: {e}", cmd.program)),
    }
}

/// Runs `program` confined: project root as cwd, the minimal environment, no stdin.
async fn spawn_capture(
    program: &str,
    args: &[String],
    cx: &ToolContext,
    timeout: Duration,
    caps: (usize, usize),
) -> std::io::Result<Captured> {
    process::spawn_capture(Spawn {
        program,
        args,
        cwd: cx.root(),
        env: child_env(&cx.roots, std::env::var_os("PATH")),
        clear_env: true,
        stdin: None,
        timeout,
        caps,
        cancel: &cx.cancel,
    })
    .await
}

/// The child's whole environment: PATH (absolute entries outside the project, so
/// a repo cannot plant its own `git`), HOME, LANG, and git hardening.
fn child_env(roots: &Roots, path: Option<OsString>) -> Vec<(OsString, OsString)> {
    let path = path.unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let safe: Vec<_> = std::env::split_paths(&path)
        .filter(|p| p.is_absolute() && !roots.all().any(|r| p.starts_with(r)))
        .collect();
    let mut env = vec![(
        OsString::from("PATH"),
        std::env::join_paths(safe).unwrap_or_default(),
    )];
    for key in ["HOME", "LANG"] {
        if let Some(v) = std::env::var_os(key) {
            env.push((key.into(), v));
        }
    }
    for (k, v) in GIT_ENV {
        env.push(((*k).into(), (*v).into()));
    }
    env
}

/// Environment every child gets: no prompts, no system config, no optional
/// locks (read-only commands must not write the index), no pager, no lazy fetch.
const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_NO_LAZY_FETCH", "1"),
];

/// Before a git command: refuse a repository whose work tree lies outside the
/// project (a hostile `core.worktree`), and return `-c` overrides that disable
/// the clean/smudge filter drivers the repository itself defines (git status and
/// diff run them on work-tree files). Drivers from the user's global config stay.
async fn git_preflight(cx: &ToolContext) -> Result<Vec<String>, String> {
    let query = |args: &[&str]| {
        let mut argv: Vec<String> = git::HARDENING.iter().map(|s| s.to_string()).collect();
        argv.extend(args.iter().map(|s| s.to_string()));
        argv
    };
    let caps = (64 * 1024, 4 * 1024);
    let top = spawn_capture(
        "git",
        &query(&["rev-parse", "--show-toplevel"]),
        cx,
        PREFLIGHT_TIMEOUT,
        caps,
    )
    .await
    .map_err(|e| format!("cannot run `git`: {e}"))?;
    if matches!(&top.ended, Ended::Exited(s) if s.success()) {
        let text = top.stdout.render();
        let top = Path::new(text.trim_end_matches('\n'));
        let top = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
        if !cx.root().starts_with(&top) && !cx.roots.contains(&top) {
            return Err(format!(
                "refused: this repository's work tree is `{}`, outside the project root `{}` \
                 (a `core.worktree` setting?); git will not run here",
                top.display(),
                cx.root().display()
            ));
        }
    }
    let filters = spawn_capture(
        "git",
        &query(&[
            "config",
            "--null",
            "--name-only",
            "--show-scope",
            "--get-regexp",
            "^filter\\.",
        ]),
        cx,
        PREFLIGHT_TIMEOUT,
        caps,
    )
    .await
    .map_err(|e| format!("cannot run `git`: {e}"))?;
    Ok(filter_overrides(&filters.stdout.render()))
}

fn render(program: &str, c: &Captured, timeout: Duration) -> ToolOutput {
    let mut text = c.stdout.render();
    if !c.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&c.stderr.render());
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    match &c.ended {
        Ended::Exited(status) => {
            match (status.code(), status.success()) {
                (Some(code), _) => text.push_str(&format!("[exit code {code}]")),
                (None, _) => text.push_str(&format!("[`{program}` was killed by a signal]")),
            }
            ToolOutput {
                content: text,
                is_error: !status.success(),
            }
        }
        Ended::TimedOut => {
            text.push_str(&format!(
                "[timed out after {} s: `{program}` and its child processes were killed; \
                 narrow the command or pass a larger `timeout`]",
                timeout.as_secs_f64()
            ));
            ToolOutput::error(text)
        }
        Ended::Cancelled => {
            text.push_str("[cancelled: the command was killed]");
            ToolOutput::error(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_path_drops_relative_and_in_project_entries() {
        let dir = tempfile::TempDir::new().unwrap();
        let roots = Roots::new(dir.path(), &[]).unwrap();
        let planted = roots.root().join("bin");
        let path = std::env::join_paths([
            std::path::PathBuf::from("/usr/bin"),
            ".".into(),
            planted,
            "bin".into(),
            "/bin".into(),
        ])
        .unwrap();
        let env = child_env(&roots, Some(path));
        let (_, path) = env.iter().find(|(k, _)| k == "PATH").unwrap();
        assert_eq!(path, "/usr/bin:/bin");
        let keys: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert!(
            keys.iter()
                .all(|k| ["PATH", "HOME", "LANG", "PAGER"].contains(&k.as_str())
                    || k.starts_with("GIT_")),
            "{keys:?}"
        );
    }
}
