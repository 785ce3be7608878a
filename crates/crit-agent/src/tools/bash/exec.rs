//! Running a checked command: no shell, cwd the project root, stdin empty, a
//! minimal environment, its own process group, capped output, and a timeout.
//!
//! Timeout and cancellation kill the whole process group with `kill(-pgid,
//! SIGKILL)` (rustix's safe wrapper): the child is spawned with `process_group(0)`,
//! so its pid is the group id, and grandchildren are reached too (tokio's
//! `kill_on_drop` alone only kills the direct child). The group is killed before
//! the child is reaped, or while members still hold its pipes, so the id cannot
//! have been reused by then.

use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until, timeout_at};

use crate::confine::Roots;
use crate::context::ToolContext;
use crate::tool::ToolOutput;
use crate::truncate::HeadTail;

use super::git;
use super::policy::CheckedCommand;

/// Time git's own preflight queries (work tree, filter drivers) may take.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(10);
/// After the group is killed, how long to wait for the pipes to close.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

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

#[derive(Debug)]
struct Captured {
    stdout: HeadTail,
    stderr: HeadTail,
    ended: Ended,
}

#[derive(Debug)]
enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

async fn spawn_capture(
    program: &str,
    args: &[String],
    cx: &ToolContext,
    timeout: Duration,
    caps: (usize, usize),
) -> std::io::Result<Captured> {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cx.root())
        .env_clear()
        .envs(child_env(&cx.roots, std::env::var_os("PATH")))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let pgid = child.id();
    let stdout = Arc::new(Mutex::new(HeadTail::new(caps.0)));
    let stderr = Arc::new(Mutex::new(HeadTail::new(caps.1)));
    let mut drains: Vec<JoinHandle<()>> = Vec::new();
    if let Some(r) = child.stdout.take() {
        drains.push(tokio::spawn(drain(r, Arc::clone(&stdout))));
    }
    if let Some(r) = child.stderr.take() {
        drains.push(tokio::spawn(drain(r, Arc::clone(&stderr))));
    }
    let deadline = Instant::now() + timeout;
    let mut ended = tokio::select! {
        s = child.wait() => s.map_or(Ended::Cancelled, Ended::Exited),
        () = sleep_until(deadline) => Ended::TimedOut,
        () = cx.cancel.cancelled() => Ended::Cancelled,
    };
    if !matches!(ended, Ended::Exited(_)) {
        kill_group(pgid);
        // Reap the leader now rather than leaving a zombie to tokio.
        let _ = child.wait().await;
    }
    // A grandchild may still hold the pipes after the leader exited: the deadline
    // still applies, then the group is killed.
    let closed = async {
        for d in &mut drains {
            let _ = d.await;
        }
    };
    let limit = if matches!(ended, Ended::Exited(_)) {
        deadline
    } else {
        Instant::now() + DRAIN_GRACE
    };
    if timeout_at(limit, closed).await.is_err() {
        kill_group(pgid);
        if matches!(ended, Ended::Exited(_)) {
            ended = Ended::TimedOut;
        }
        let _ = timeout_at(Instant::now() + DRAIN_GRACE, async {
            for d in &mut drains {
                let _ = d.await;
            }
        })
        .await;
        drains.iter().for_each(JoinHandle::abort);
    }
    Ok(Captured {
        stdout: take(&stdout),
        stderr: take(&stderr),
        ended,
    })
}

fn take(buf: &Arc<Mutex<HeadTail>>) -> HeadTail {
    let mut guard = buf.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    std::mem::replace(&mut *guard, HeadTail::new(0))
}

async fn drain(mut r: impl AsyncRead + Unpin, buf: Arc<Mutex<HeadTail>>) {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(&chunk[..n]),
        }
    }
}

/// SIGKILL to the whole group (pgid = the child's pid, from `process_group(0)`).
fn kill_group(pgid: Option<u32>) {
    let pid = pgid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid
        && let Err(e) = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL)
    {
        tracing::debug!(error = %e, "killing the command's process group");
    }
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

/// `scope\0key\0` pairs to `-c filter.<driver>.<k>=` overrides for non-global drivers.
fn filter_overrides(listing: &str) -> Vec<String> {
    let mut drivers: Vec<&str> = Vec::new();
    let mut parts = listing.split('\0');
    while let (Some(scope), Some(key)) = (parts.next(), parts.next()) {
        let driver = key
            .strip_prefix("filter.")
            .and_then(|k| k.rsplit_once('.'))
            .map(|(d, _)| d);
        if let Some(d) = driver.filter(|d| scope != "global" && !d.is_empty())
            && !drivers.contains(&d)
        {
            drivers.push(d);
        }
    }
    drivers
        .iter()
        .flat_map(|d| {
            ["clean=", "smudge=", "process=", "required=false"]
                .map(|k| ["-c".to_string(), format!("filter.{d}.{k}")])
        })
        .flatten()
        .collect()
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

    /// The timeout kills grandchildren too: `sh` starts a background `sleep` and
    /// waits; after the kill no process with the marker argument is left.
    #[tokio::test]
    async fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::TempDir::new().unwrap();
        let cx = ToolContext::new(dir.path(), &[]).unwrap();
        let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 17);
        let script = format!("sleep {marker} & sleep {marker}; wait");
        let c = spawn_capture(
            "sh",
            &["-c".into(), script],
            &cx,
            Duration::from_millis(300),
            (100, 100),
        )
        .await
        .unwrap();
        assert!(matches!(c.ended, Ended::TimedOut), "{:?}", c.ended);
        // SIGKILL is delivered at once, but the kernel may take a moment to reap.
        let mut left = Vec::new();
        for _ in 0..50 {
            left = processes_with_arg(&marker);
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(left.is_empty(), "still running: {left:?}");
    }

    /// Live (non-zombie) processes whose command line contains `arg`.
    fn processes_with_arg(arg: &str) -> Vec<String> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            if cmdline.contains(arg) && !zombie {
                found.push(cmdline);
            }
        }
        found
    }

    #[test]
    fn filter_overrides_skip_global_drivers() {
        let listing =
            "global\0filter.lfs.clean\0local\0filter.evil.clean\0local\0filter.a.b.smudge\0";
        assert_eq!(
            filter_overrides(listing),
            [
                "-c",
                "filter.evil.clean=",
                "-c",
                "filter.evil.smudge=",
                "-c",
                "filter.evil.process=",
                "-c",
                "filter.evil.required=false",
                "-c",
                "filter.a.b.clean=",
                "-c",
                "filter.a.b.smudge=",
                "-c",
                "filter.a.b.process=",
                "-c",
                "filter.a.b.required=false",
            ]
        );
    }
}
