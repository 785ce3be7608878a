//! Running `claude` as a child in its own process group, killed as a group.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use super::parse::{AgentOutcome, AgentProgress, LineParser};
use super::{AgentTask, ClaudeCode};
use crate::error::LlmError;
use crate::process_group::GroupGuard;

const STDERR_CAP: usize = 16 * 1024;

pub(super) async fn run(
    cc: &ClaudeCode,
    task: &AgentTask,
    cancel: CancellationToken,
    on_progress: &mut (dyn FnMut(AgentProgress) + Send),
) -> Result<AgentOutcome, LlmError> {
    let cfg = &cc.config;
    let mut cmd = Command::new(&cfg.bin);
    cmd.args(ClaudeCode::args(task))
        .env_clear()
        .envs(cc.child_env().iter())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    if let Some(dir) = task.cwd.as_ref().or(cfg.cwd.as_ref()) {
        cmd.current_dir(dir);
    }
    let mut child = spawn(&mut cmd).await.map_err(|e| LlmError::Agent {
        message: format!("cannot run {}: {e}", cfg.bin.display()),
    })?;
    let mut guard = GroupGuard::new(child.id());

    // Write the prompt concurrently: a big prompt must not deadlock on a full pipe.
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = task.prompt.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(prompt.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    let stderr = child.stderr.take().map(|mut err| {
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let _ = (&mut err)
                .take(STDERR_CAP as u64)
                .read_to_end(&mut buf)
                .await;
            // Drain the rest so the child never blocks on a full stderr pipe.
            let _ = tokio::io::copy(&mut err, &mut tokio::io::sink()).await;
            String::from_utf8_lossy(&buf).into_owned()
        })
    });
    let Some(stdout) = child.stdout.take() else {
        return Err(LlmError::Agent {
            message: "no stdout pipe to claude".into(),
        });
    };

    let mut parser = LineParser::default();
    // At most the response cap is read: a CLI that prints forever (or one
    // endless line) is stopped and its group killed, not buffered.
    let cap = cfg.limits.max_bytes;
    let read = async {
        let mut limited = BufReader::new(stdout.take(cap));
        let mut line = Vec::new();
        loop {
            line.clear();
            match limited.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    for p in parser.line(&String::from_utf8_lossy(&line)) {
                        on_progress(p);
                    }
                }
            }
        }
        limited.into_inner().limit() == 0
    };
    let timed_out = tokio::select! {
        _ = cancel.cancelled() => Some(LlmError::Cancelled),
        _ = tokio::time::sleep(cfg.timeout) => Some(LlmError::Timeout {
            message: format!("claude ran longer than {:?}; its process group was killed", cfg.timeout),
        }),
        over = read => over.then_some(LlmError::ResponseTooLarge { limit: cap }),
    };
    if let Some(err) = timed_out {
        guard.kill();
        let _ = child.wait().await;
        return Err(err);
    }

    let status = reap(&mut child, &mut guard).await;
    let stderr = match stderr {
        Some(h) => h.await.unwrap_or_default(),
        None => String::new(),
    };
    if parser.result.is_none() {
        return Err(LlmError::Agent {
            message: format!(
                "claude exited ({}) without a result: {}",
                status.map_or_else(|| "unknown status".into(), |s| s.to_string()),
                tail(&stderr)
            ),
        });
    }
    parser.finish(task.json_schema.is_some())
}

/// Spawns, retrying briefly on ETXTBSY: a just-written executable can still be
/// open for writing in a child forked by another thread, until that child execs.
async fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 5 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(20 * tries)).await;
            }
            other => return other,
        }
    }
}

/// Waits briefly for the exit after stdout closed, then kills the group (the CLI may
/// leave children behind).
async fn reap(child: &mut Child, guard: &mut GroupGuard) -> Option<std::process::ExitStatus> {
    let status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(s) => s.ok(),
        Err(_) => {
            guard.kill();
            child.wait().await.ok()
        }
    };
    // Reaped: the pid may be reused from now on, so never signal it again.
    guard.disarm();
    status
}

fn tail(stderr: &str) -> String {
    let t = stderr.trim();
    let start = t.char_indices().rev().nth(500).map_or(0, |(i, _)| i);
    if t.is_empty() {
        "(no stderr)".into()
    } else {
        t[start..].to_string()
    }
}
