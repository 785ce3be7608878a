//! crit's GitHub Action, run locally as the runner runs it: `action/run.py`
//! (exactly what action.yml's review step runs) with a pull-request event
//! file, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and `RUNNER_TEMP`, on a real
//! repository with a pull-request base. The answer is recorded once against
//! crit-testkit's fake server through the action itself, then the action runs
//! offline on the replay provider. Also: `action/install.sh` verifies a
//! release's checksum before installing it, and at a ref that is not a
//! release tag builds the action's own checkout (stand-in `cargo` and `curl`
//! on PATH), once per ref and sources. The workflow files themselves are
//! `action_workflows`'s.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{git, init_repo, python, show, write};
use tempfile::TempDir;

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn crit_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_crit"))
}

/// `main` has `src/app.py`; the pull request's branch reads input with eval.
fn pull_request() -> (TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    let lines: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    write(d, "src/app.py", &lines);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    let base = rev(d, "HEAD");
    git(d, &["checkout", "-q", "-b", "feature"]);
    write(
        d,
        "src/app.py",
        &lines.replace("line 5\n", "x = eval(input())\n"),
    );
    git(d, &["commit", "-q", "-am", "read input"]);
    let head = rev(d, "HEAD");
    (dir, base, head)
}

fn rev(d: &Path, r: &str) -> String {
    let out = Command::new("git")
        .args(["rev-parse", r])
        .current_dir(d)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn answer() -> Reply {
    Reply::json(
        json!({"verdict": "FAIL", "summary": "eval of user input.", "findings": [
            {"file_path": "src/app.py", "line_start": 5, "line_end": 5, "priority": 1,
             "title": "[P1] eval of user input", "body": "Runs whatever the user types."},
            {"file_path": "src/app.py", "line_start": 1, "line_end": 1, "priority": 3,
             "title": "[P3] Name the module", "body": "A docstring would help."}
        ]}),
    )
    .usage(1200, 300, 0, 0)
}

/// The runner's files for one step.
struct Runner {
    dir: TempDir,
}

impl Runner {
    fn new(event: &Value) -> Runner {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("event.json"), event.to_string()).unwrap();
        std::fs::write(dir.path().join("output"), "").unwrap();
        std::fs::write(dir.path().join("summary.md"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("temp")).unwrap();
        Runner { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `python3 action/run.py` in `repo` with the runner's environment and
    /// the action's inputs.
    fn run(
        &self,
        python: &Path,
        repo: &Path,
        inputs: &[(&str, &str)],
        extra: &[(&str, String)],
    ) -> Output {
        let mut c = Command::new(python);
        c.arg(root().join("action/run.py"))
            .current_dir(repo)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", repo.join(".home"))
            .env("XDG_STATE_HOME", repo.join(".state"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", self.path("event.json"))
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("RUNNER_TEMP", self.path("temp"))
            .env("CRIT", crit_bin());
        for (k, v) in inputs {
            c.env(format!("INPUT_{}", k.to_uppercase().replace('-', "_")), v);
        }
        for (k, v) in extra {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    /// `GITHUB_OUTPUT` as the runner reads it (`key=value`, or `key<<DELIM`
    /// … `DELIM`).
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(self.path("output")).unwrap();
        let mut out = BTreeMap::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if let Some((key, value)) = line.split_once('=')
                && !key.contains("<<")
            {
                out.insert(key.to_string(), value.to_string());
                continue;
            }
            let (key, delim) = line.split_once("<<").unwrap_or_else(|| panic!("{line:?}"));
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                value.push(l);
            }
            out.insert(key.to_string(), value.join("\n"));
        }
        out
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.path("summary.md")).unwrap()
    }
}

fn event(base: &str, head: &str) -> Value {
    json!({"action": "synchronize", "number": 7, "pull_request": {
        "number": 7, "base": {"ref": "main", "sha": base}, "head": {"ref": "feature", "sha": head}}})
}

#[test]
fn the_action_reviews_a_pull_request_offline_and_gates_it() {
    let Some(py) = python() else { return };
    let (repo, base, head) = pull_request();
    let d = repo.path();
    let cassettes = tempfile::tempdir().unwrap();
    let scope = format!("--diff {base} --verify off --no-cache");

    // Record the model's answer once, through the action, against the fake server.
    let server = FakeServer::start_blocking();
    server.push(answer());
    let rec = Runner::new(&event(&base, &head));
    let out = rec.run(
        &py,
        d,
        &[
            ("provider", "anthropic"),
            ("model", "sonnet"),
            ("fail-on", "p1"),
            (
                "args",
                &format!("{scope} --record '{}'", cassettes.path().display()),
            ),
        ],
        &[
            ("ANTHROPIC_BASE_URL", server.url()),
            (
                "ANTHROPIC_API_KEY",
                "sk-ant-action-secret-0123456789".into(),
            ),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(server.model_requests().len(), 1);
    let recorded = rec.outputs();

    // Replay: no server, no key.
    let run = Runner::new(&event(&base, &head));
    let out = run.run(
        &py,
        d,
        &[
            ("template", "code"),
            ("provider", "replay"),
            ("model", "sonnet"),
            ("fail-on", "p1"),
            (
                "args",
                &format!("{scope} --cassettes {}", cassettes.path().display()),
            ),
            ("annotations", "true"),
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the P1 fails the gate: {}",
        show(&out)
    );
    let o = run.outputs();
    assert_eq!(o["verdict"], "FAIL");
    assert_eq!(o["passed"], "false");
    assert_eq!(o["findings"], "2");
    assert_eq!(o["cost-usd"], recorded["cost-usd"]);
    assert!(o["cost-usd"].parse::<f64>().unwrap() > 0.0, "{o:?}");
    for key in ["result", "sarif", "rdjson"] {
        assert!(
            Path::new(&o[key]).starts_with(run.path("temp")),
            "{key}: {}",
            o[key]
        );
    }
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&o["sarif"]).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/app.py"
    );
    let rdjson: Value =
        serde_json::from_str(&std::fs::read_to_string(&o["rdjson"]).unwrap()).unwrap();
    assert_eq!(rdjson["diagnostics"].as_array().unwrap().len(), 2);
    let summary = run.summary();
    assert!(summary.contains("crit code: FAIL"), "{summary}");
    assert!(summary.contains("eval of user input"), "{summary}");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        log.contains("::error file=src/app.py,line=5,title=P1 eval of user input"),
        "{log}"
    );
    assert!(!log.contains("sk-ant-action-secret"), "{log}");

    // The same review with a gate it passes: exit 0, and the outputs say so.
    let pass = Runner::new(&event(&base, &head));
    let out = pass.run(
        &py,
        d,
        &[
            ("provider", "replay"),
            ("model", "sonnet"),
            ("fail-on", "never"),
            (
                "args",
                &format!("{scope} --cassettes {}", cassettes.path().display()),
            ),
            ("annotations", "false"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(pass.outputs()["passed"], "true");
    assert_eq!(pass.outputs()["verdict"], "FAIL");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error file="));
}

#[test]
fn a_review_that_cannot_run_fails_the_job_and_says_so() {
    let Some(py) = python() else { return };
    let (repo, base, head) = pull_request();
    let d = repo.path();
    let empty = tempfile::tempdir().unwrap();
    // An unknown template: a usage error, no result.
    let run = Runner::new(&event(&base, &head));
    let out = run.run(&py, d, &[("template", "no-such-template")], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_eq!(run.outputs()["verdict"], "ERROR");
    assert_eq!(run.outputs()["passed"], "false");
    assert!(
        run.summary().contains("crit no-such-template: ERROR"),
        "{}",
        run.summary()
    );
    // No cassette for this request: the review fails closed, the job fails.
    let run = Runner::new(&event(&base, &head));
    let out = run.run(
        &py,
        d,
        &[
            ("provider", "replay"),
            ("fail-on", "never"),
            (
                "args",
                &format!("--diff {base} --cassettes {}", empty.path().display()),
            ),
        ],
        &[],
    );
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(run.outputs()["passed"], "false", "{}", show(&out));
    // Bad inputs are refused before crit runs.
    for (k, v) in [("fail-on", "sometimes"), ("args", "--diff 'unclosed")] {
        let run = Runner::new(&event(&base, &head));
        let out = run.run(&py, d, &[(k, v)], &[]);
        assert_eq!(out.status.code(), Some(2), "{k}: {}", show(&out));
        assert_eq!(run.outputs()["verdict"], "ERROR");
    }
}

/// The target install.sh picks on this machine.
fn target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        _ => "x86_64-apple-darwin",
    }
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// A release laid out as GitHub serves it, under a `file://` URL.
fn release(tag: &str, tamper: bool) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let stage = dir.path().join("stage");
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(crit_bin(), stage.join("crit")).unwrap();
    let asset = format!("crit-{}.tar.gz", target());
    for at in [format!("download/{tag}"), "latest/download".to_string()] {
        let to = dir.path().join("releases").join(at);
        std::fs::create_dir_all(&to).unwrap();
        let st = Command::new("tar")
            .args(["-czf"])
            .arg(to.join(&asset))
            .args(["-C"])
            .arg(&stage)
            .arg("crit")
            .status()
            .unwrap();
        assert!(st.success());
        let mut sum = sha256(&to.join(&asset));
        if tamper {
            sum = sum.replace(&sum[..4], "0000");
        }
        std::fs::write(
            to.join("SHA256SUMS"),
            format!("{sum}  {asset}\n0000  crit-other-target.tar.gz\n"),
        )
        .unwrap();
    }
    dir
}

fn install(rel: &Path, version: &str) -> (Output, Runner) {
    install_at(rel, version, "", &[])
}

/// `action/install.sh` with the action used at `action_ref`.
fn install_at(
    rel: &Path,
    version: &str,
    action_ref: &str,
    env: &[(&str, String)],
) -> (Output, Runner) {
    let runner = Runner::new(&json!({}));
    std::fs::write(runner.path("path"), "").unwrap();
    let mut c = Command::new("bash");
    c.arg(root().join("action/install.sh"))
        .env("INPUT_VERSION", version)
        .env("CRIT_ACTION_REF", action_ref)
        .env(
            "CRIT_RELEASE_BASE_URL",
            format!("file://{}/releases", rel.display()),
        )
        .env("CRIT_ACTION_REPOSITORY", "crit-review/crit")
        .env("RUNNER_TEMP", runner.path("temp"))
        .env("GITHUB_OUTPUT", runner.path("output"))
        .env("GITHUB_PATH", runner.path("path"));
    for (k, v) in env {
        c.env(k, v);
    }
    (c.output().unwrap(), runner)
}

/// Stand-ins for `cargo` and `curl`, first on PATH: each records its
/// arguments in `cargo.log` / `curl.log`; `cargo install --root DIR` puts
/// this build's crit in DIR/bin, `curl` fails as for a missing file.
struct StandIns {
    dir: TempDir,
}

impl StandIns {
    fn new() -> StandIns {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let log = dir.path().display().to_string();
        let cargo = format!(
            "#!/bin/sh\necho \"$*\" >> '{log}/cargo.log'\nroot=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\nmkdir -p \"$root/bin\" && cp '{}' \"$root/bin/crit\"\n",
            crit_bin().display()
        );
        let curl = format!("#!/bin/sh\necho \"$*\" >> '{log}/curl.log'\nexit 22\n");
        for (name, text) in [("cargo", cargo), ("curl", curl)] {
            std::fs::write(bin.join(name), text).unwrap();
            let st = Command::new("chmod")
                .arg("+x")
                .arg(bin.join(name))
                .status()
                .unwrap();
            assert!(st.success());
        }
        StandIns { dir }
    }

    fn path(&self) -> String {
        format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// Each call's arguments, one line per call.
    fn calls(&self, tool: &str) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join(format!("{tool}.log")))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A small checkout to build: what install.sh hashes.
fn checkout() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", "[package]\nname = \"crit-cli\"\n");
    write(dir.path(), "Cargo.lock", "version = 4\n");
    write(dir.path(), "src/main.rs", "fn main() {}\n");
    dir
}

#[test]
fn install_verifies_the_release_checksum_before_installing() {
    let good = release("v9.9.9", false);
    // `version` empty: the action's ref, a release tag, picks the release.
    for (version, at) in [("v9.9.9", ""), ("latest", ""), ("", "v9.9.9")] {
        let (out, runner) = install_at(good.path(), version, at, &[]);
        assert!(out.status.success(), "{version} at {at}: {}", show(&out));
        let bin = runner.outputs()["crit"].clone();
        assert_eq!(Path::new(&bin), runner.path("temp/crit-bin/crit"));
        let v = Command::new(&bin).arg("--version").output().unwrap();
        assert!(String::from_utf8_lossy(&v.stdout).starts_with("crit "));
        let path = std::fs::read_to_string(runner.path("path")).unwrap();
        assert_eq!(
            path.trim(),
            runner.path("temp/crit-bin").display().to_string()
        );
    }
    let bad = release("v9.9.9", true);
    let (out, runner) = install(bad.path(), "v9.9.9");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("checksum mismatch"),
        "{}",
        show(&out)
    );
    assert!(
        !runner.path("temp/crit-bin/crit").exists(),
        "nothing installed"
    );
    let (out, _) = install(good.path(), "v0.0.1");
    assert_eq!(
        out.status.code(),
        Some(1),
        "no such release: {}",
        show(&out)
    );
}

#[test]
fn install_at_a_branch_or_commit_builds_the_actions_own_checkout_once() {
    let tools = StandIns::new();
    let src = checkout();
    let cache = tempfile::tempdir().unwrap();
    let no_releases = tempfile::tempdir().unwrap();
    let env = |extra: &[(&'static str, String)]| {
        let mut v = vec![
            ("PATH", tools.path()),
            ("CRIT_SOURCE_DIR", src.path().display().to_string()),
            ("CRIT_CACHE_DIR", cache.path().display().to_string()),
        ];
        v.extend_from_slice(extra);
        v
    };
    let (out, runner) = install_at(no_releases.path(), "", "main", &env(&[]));
    assert!(out.status.success(), "{}", show(&out));
    let cargo = tools.calls("cargo");
    assert_eq!(cargo.len(), 1, "{cargo:?}");
    let want = format!("--path {}", src.path().display());
    assert!(
        cargo[0].starts_with("install --locked --root ") && cargo[0].ends_with(&want),
        "{}",
        cargo[0]
    );
    assert!(tools.calls("curl").is_empty(), "no release is downloaded");
    let bin = PathBuf::from(&runner.outputs()["crit"]);
    assert!(bin.starts_with(cache.path()), "{}", bin.display());
    assert!(
        bin.display().to_string().contains("source-main-"),
        "{}",
        bin.display()
    );
    let v = Command::new(&bin).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("crit "));
    assert_eq!(
        std::fs::read_to_string(runner.path("path")).unwrap().trim(),
        bin.parent().unwrap().display().to_string()
    );

    // The same ref and sources again: from the tool cache, no build.
    let (out, runner) = install_at(no_releases.path(), "", "main", &env(&[]));
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(tools.calls("cargo").len(), 1);
    assert_eq!(PathBuf::from(&runner.outputs()["crit"]), bin);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("tool cache"),
        "{}",
        show(&out)
    );

    // The branch moved on: built again.
    write(src.path(), "src/main.rs", "fn main() { println!(); }\n");
    let (out, runner) = install_at(no_releases.path(), "", "main", &env(&[]));
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(tools.calls("cargo").len(), 2);
    assert_ne!(PathBuf::from(&runner.outputs()["crit"]), bin);

    // A commit, and a moving major tag, have no release of their own: built.
    for at in ["0123456789abcdef0123456789abcdef01234567", "v1"] {
        let (out, _) = install_at(no_releases.path(), "", at, &env(&[]));
        assert!(out.status.success(), "{at}: {}", show(&out));
    }
    assert_eq!(tools.calls("cargo").len(), 4);
    assert!(tools.calls("curl").is_empty());

    // A release tag is downloaded; with no such release, the checkout it
    // names is built instead, and the log says so.
    let (out, _) = install_at(no_releases.path(), "", "v9.9.9", &env(&[]));
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(tools.calls("curl").len(), 1);
    assert_eq!(tools.calls("cargo").len(), 5);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no release v9.9.9"),
        "{}",
        show(&out)
    );
    // Asked for by name, a missing release is an error, not a build.
    let (out, _) = install_at(no_releases.path(), "v9.9.9", "main", &env(&[]));
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(tools.calls("cargo").len(), 5);

    // Without Rust on the runner: an error saying what to do.
    let bare = tempfile::tempdir().unwrap();
    for tool in [
        "bash",
        "find",
        "sort",
        "xargs",
        "sha256sum",
        "cut",
        "tr",
        "dirname",
        "mkdir",
    ] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
            .unwrap();
        std::os::unix::fs::symlink(found, bare.path().join(tool)).unwrap();
    }
    let (out, _) = install_at(
        no_releases.path(),
        "",
        "main",
        &[
            ("PATH", bare.path().display().to_string()),
            ("CRIT_SOURCE_DIR", src.path().display().to_string()),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs Rust (cargo)"),
        "{}",
        show(&out)
    );
}
