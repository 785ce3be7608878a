//! The async runner with a spawner of the caller's (as crit-agent's sandbox
//! uses it): the prepared command is handed over, already in its own process
//! group, and its output is captured and capped.

use std::time::Duration;

use crit_os::process::{Ended, Spawn, spawn_capture_with};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_callers_spawner_gets_the_prepared_command() {
    let dir = tempfile::TempDir::new().unwrap();
    let args = [
        "-c".to_string(),
        "echo $CRIT_X; ps -o pgid= -p $$; echo $$".to_string(),
    ];
    let mut used = false;
    let c = spawn_capture_with(
        Spawn {
            program: "sh",
            args: &args,
            cwd: dir.path(),
            env: vec![("CRIT_X".into(), "from-env".into())],
            clear_env: false,
            stdin: None,
            timeout: Duration::from_secs(30),
            caps: (1000, 1000),
            cancel: &CancellationToken::new(),
        },
        |mut command| {
            used = true;
            async move { command.spawn() }
        },
    )
    .await
    .unwrap();
    assert!(used);
    assert!(
        matches!(c.ended, Ended::Exited(s) if s.success()),
        "{:?}",
        c.ended
    );
    let out = c.stdout.render();
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    assert_eq!(lines.first(), Some(&"from-env"), "{out}");
    // Its own process group: the group id is its pid.
    if lines.len() == 3 && !lines[1].is_empty() {
        assert_eq!(lines[1], lines[2], "{out}");
    }
}
