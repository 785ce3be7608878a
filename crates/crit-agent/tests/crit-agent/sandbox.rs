#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! The kernel sandbox seen working: processes spawned through a [`Sandbox`]
//! are refused by the kernel (EACCES) when they read outside the allowed
//! directories, write anywhere, or open a TCP connection, even with no
//! argument policy in front (these tests call the spawner directly).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crit_agent::process::{Captured, Ended, Spawn, spawn_capture_in};
use crit_agent::sandbox::{Sandbox, SandboxRules, SandboxStatus};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// A sandbox reading `root` only, or `None` (with a notice) where the kernel
/// has no Landlock. Under `CI=true` a missing Landlock fails the test: the
/// machines crit is tested on have it, so its absence is a broken setup.
fn sandbox(root: &Path) -> Option<Sandbox> {
    let s = Sandbox::start(SandboxRules::system().read(root)).unwrap();
    match s.status() {
        SandboxStatus::Active { .. } => Some(s),
        SandboxStatus::Unavailable { reason } => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "the kernel sandbox is required under CI=true: {reason}"
            );
            eprintln!("notice: kernel sandbox unavailable, test skipped: {reason}");
            None
        }
    }
}

async fn run(sandbox: &Sandbox, cwd: &Path, program: &str, args: &[&str]) -> Captured {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    spawn_capture_in(
        Spawn {
            program,
            args: &args,
            cwd,
            env: vec![("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into())],
            clear_env: true,
            stdin: None,
            timeout: Duration::from_secs(20),
            caps: (64 * 1024, 64 * 1024),
            cancel: &CancellationToken::new(),
        },
        sandbox,
    )
    .await
    .unwrap()
}

fn exit_code(c: &Captured) -> Option<i32> {
    match &c.ended {
        Ended::Exited(s) => s.code(),
        _ => None,
    }
}

struct Dirs {
    _root: TempDir,
    _outside: TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let root_dir = TempDir::new().unwrap();
    let outside_dir = TempDir::new().unwrap();
    let root = root_dir.path().canonicalize().unwrap();
    let outside = outside_dir.path().canonicalize().unwrap();
    std::fs::write(root.join("inside.txt"), "INSIDE\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET\n").unwrap();
    Dirs {
        _root: root_dir,
        _outside: outside_dir,
        root,
        outside,
    }
}

#[tokio::test]
async fn a_read_outside_the_root_is_refused_by_the_kernel() {
    let d = dirs();
    let Some(sb) = sandbox(&d.root) else { return };
    let inside = run(&sb, &d.root, "cat", &["inside.txt"]).await;
    assert_eq!(inside.stdout.render(), "INSIDE\n");
    assert_eq!(exit_code(&inside), Some(0));

    let secret = d.outside.join("secret.txt");
    for target in [secret.display().to_string(), "/etc/passwd".to_string()] {
        let c = run(&sb, &d.root, "cat", &[&target]).await;
        assert!(
            !c.stdout.render().contains("SECRET"),
            "{}",
            c.stdout.render()
        );
        assert!(
            c.stderr.render().contains("Permission denied"),
            "`cat {target}`: {}",
            c.stderr.render()
        );
        assert_eq!(exit_code(&c), Some(1));
    }
    // Listing is refused too, and so is a symlink inside the root that points out.
    let c = run(&sb, &d.root, "ls", &[&d.outside.display().to_string()]).await;
    assert!(c.stderr.render().contains("Permission denied"), "{c:?}");
    std::os::unix::fs::symlink(&secret, d.root.join("link")).unwrap();
    let c = run(&sb, &d.root, "cat", &["link"]).await;
    assert!(c.stderr.render().contains("Permission denied"), "{c:?}");
    // The same read outside the sandbox works: the refusal is the kernel's.
    let plain = std::fs::read_to_string(&secret).unwrap();
    assert_eq!(plain, "TOP-SECRET\n");
}

#[tokio::test]
async fn writes_and_network_are_refused_by_the_kernel() {
    let d = dirs();
    let Some(sb) = sandbox(&d.root) else { return };
    let target = d.root.join("written.txt");
    let c = run(
        &sb,
        &d.root,
        "sh",
        &["-c", &format!("echo x > '{}'", target.display())],
    )
    .await;
    assert!(c.stderr.render().contains("Permission denied"), "{c:?}");
    assert!(!target.exists());
    let c = run(
        &sb,
        &d.root,
        "touch",
        &[&d.outside.join("new").display().to_string()],
    )
    .await;
    assert!(c.stderr.render().contains("Permission denied"), "{c:?}");
    assert!(!d.outside.join("new").exists());

    // A listener on the loopback: the sandboxed connect is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let SandboxStatus::Active { abi } = sb.status() else {
        unreachable!()
    };
    if *abi >= 4 {
        let c = run(
            &sb,
            &d.root,
            "bash",
            &[
                "-c",
                &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
            ],
        )
        .await;
        assert!(!c.stdout.render().contains("connected"), "{c:?}");
        assert!(c.stderr.render().contains("Permission denied"), "{c:?}");
    }
}
