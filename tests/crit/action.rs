//! crit's GitHub Action, run locally as the runner runs it: `action/run.py`
//! (exactly what action.yml's review step runs) with a pull-request event
//! file, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and `RUNNER_TEMP`, on a real
//! repository with a pull-request base. The answer is recorded once against
//! crit-testkit's fake server through the action itself, then the action runs
//! offline on the replay provider. Also: `action/install.sh` verifies a
//! release's checksum before installing it, and action.yml parses, uses every
//! input, and pins third-party actions by commit.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{git, init_repo, python, show, write};
use tempfile::TempDir;

fn root() -> PathBuf {
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
    let runner = Runner::new(&json!({}));
    std::fs::write(runner.path("path"), "").unwrap();
    let out = Command::new("bash")
        .arg(root().join("action/install.sh"))
        .env("INPUT_VERSION", version)
        .env(
            "CRIT_RELEASE_BASE_URL",
            format!("file://{}/releases", rel.display()),
        )
        .env("CRIT_ACTION_REPOSITORY", "crit-review/crit")
        .env("RUNNER_TEMP", runner.path("temp"))
        .env("GITHUB_OUTPUT", runner.path("output"))
        .env("GITHUB_PATH", runner.path("path"))
        .output()
        .unwrap();
    (out, runner)
}

#[test]
fn install_verifies_the_release_checksum_before_installing() {
    let good = release("v9.9.9", false);
    for version in ["v9.9.9", "latest", ""] {
        let (out, runner) = install(good.path(), version);
        assert!(out.status.success(), "{version}: {}", show(&out));
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

/// Every `${{ inputs.NAME }}` in `text`.
fn references<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `uses:` is a local path, crit's own action at a release, or pinned
/// to a full commit sha.
fn assert_pinned(doc: &Value, file: &str) {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    if k == "uses" {
                        out.push(v.as_str().unwrap_or_default().to_string());
                    }
                    walk(v, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut uses = Vec::new();
    walk(doc, &mut uses);
    for u in uses {
        if u.starts_with("./")
            || u.starts_with("crit-review/crit@")
            || u.starts_with("crit-review/crit/setup@")
        {
            continue;
        }
        let (_, sha) = u
            .split_once('@')
            .unwrap_or_else(|| panic!("{file}: {u} has no ref"));
        assert!(
            sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{file}: {u} is not pinned to a commit"
        );
    }
}

#[test]
fn action_yml_parses_uses_every_input_and_pins_third_party_actions() {
    let doc = yaml(&root().join("action.yml"));
    assert_eq!(doc["runs"]["using"], "composite");
    let inputs: Vec<String> = doc["inputs"].as_object().unwrap().keys().cloned().collect();
    for want in ["template", "fail-on", "provider", "model", "args"] {
        assert!(inputs.iter().any(|i| i == want), "{want}");
    }
    let steps = doc["runs"]["steps"].to_string();
    for i in &inputs {
        assert!(
            references(&steps, "inputs.").contains(&i.as_str()),
            "input `{i}` is never used"
        );
    }
    for r in references(&steps, "inputs.") {
        assert!(
            inputs.iter().any(|i| i == r),
            "`inputs.{r}` is not declared"
        );
    }
    // The outputs come from what run.py writes.
    let outputs = doc["outputs"].as_object().unwrap();
    for want in ["verdict", "passed", "findings", "cost-usd"] {
        assert!(outputs.contains_key(want), "{want}");
    }
    let written = [
        "verdict", "passed", "findings", "cost-usd", "result", "sarif", "rdjson",
    ];
    let all = doc.to_string();
    for r in references(&all, "steps.review.outputs.") {
        assert!(
            written.contains(&r),
            "steps.review.outputs.{r} is never written"
        );
    }
    // The review step passes every INPUT_ run.py reads.
    let script = std::fs::read_to_string(root().join("action/run.py")).unwrap();
    let review = doc["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "review")
        .unwrap();
    for name in references(&script, "env(\"INPUT_") {
        assert!(
            review["env"].get(format!("INPUT_{name}")).is_some(),
            "INPUT_{name} is read but not passed"
        );
    }
    for step in doc["runs"]["steps"].as_array().unwrap() {
        if let Some(run) = step["run"].as_str()
            && let Some(i) = run.find("$GITHUB_ACTION_PATH/")
        {
            let rel: String = run[i + "$GITHUB_ACTION_PATH/".len()..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '"')
                .collect();
            assert!(root().join(&rel).is_file(), "{rel}");
        }
    }
    assert_pinned(&doc, "action.yml");
    let setup = yaml(&root().join("setup/action.yml"));
    let steps = setup["runs"]["steps"].to_string();
    for i in setup["inputs"].as_object().unwrap().keys() {
        assert!(
            references(&steps, "inputs.").contains(&i.as_str()),
            "setup: `{i}` unused"
        );
    }
    assert!(steps.contains("action/install.sh"));
}

#[test]
fn example_and_release_workflows_parse_and_pin_their_actions() {
    let mut files = Vec::new();
    for dir in ["examples/ci/github", ".github/workflows"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    files.push(root().join("examples/ci/gitlab/.gitlab-ci.yml"));
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let doc = yaml(&f);
        let name = f.display().to_string();
        assert_pinned(&doc, &name);
        if name.contains("github") {
            assert!(doc.get("jobs").is_some(), "{name}");
        }
    }
}
