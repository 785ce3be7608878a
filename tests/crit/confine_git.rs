//! The reviewer's tools cannot get out: crit-testkit plays a hostile model that
//! asks the restricted Bash for many ways out of the project, through the
//! `crit` binary, in hostile repositories made in temporary directories. Each
//! case asserts on what the model received back and on the filesystem
//! afterwards (no program the repository configured ran, nothing was written).

use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crit_testkit::{FakeServer, Reply, Step, anthropic_tool_id};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, write};
use tempfile::TempDir;

/// Markers that must never reach the model.
const SECRET_FILE: &str = "SECRET-OUTSIDE-FILE-7f3a";
const HOOK_RAN: &str = "HOOK-RAN-";

/// A user template that gives the model only Bash.
fn template(config_home: &Path) {
    write(
        config_home,
        "crit/templates/probe.yaml",
        r#"name: probe
description: Looks around with Bash
system_prompt: You review code.
allowed_tools: [Bash]
inputs:
  required:
    - name: target
      description: What to review
prompt_template: "Review {target}."
"#,
    );
}

/// Runs `crit review probe` in `project` with the model asking for every
/// command at once; returns each command's result as the model received it.
fn probe(project: &Path, home: &Path, commands: &[String]) -> BTreeMap<String, String> {
    let config = TempDir::new().unwrap();
    template(config.path());
    let server = FakeServer::start_blocking();
    let calls: Vec<(&str, Value)> = commands
        .iter()
        .map(|c| ("Bash", json!({ "command": c })))
        .collect();
    server.push(Step::reply(Reply::tool_uses(calls)));
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "ok", "findings": []}),
    )));
    let out = crit(project, &server, None)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", config.path())
        .env("XDG_STATE_HOME", config.path().join("state"))
        .args(["review", "probe", "src", "--json", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    let requests = server.model_requests();
    assert_eq!(
        requests.len(),
        2,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = tool_results(&requests[1].body);
    commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let id = anthropic_tool_id(0, i);
            let text = results
                .get(&id)
                .unwrap_or_else(|| panic!("no result for `{c}` ({id})"));
            (c.clone(), text.clone())
        })
        .collect()
}

/// tool_use_id → the text of its tool_result, from the last user message.
fn tool_results(body: &Value) -> BTreeMap<String, String> {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    let mut out = BTreeMap::new();
    for block in last["content"].as_array().unwrap() {
        if block["type"] != "tool_result" {
            continue;
        }
        let text = match &block["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        };
        out.insert(
            block["tool_use_id"].as_str().unwrap().to_string(),
            unframe(&text),
        );
    }
    out
}

/// A tool result's text inside the `<tool_output>` element every result
/// reaches the model in (the element itself is asserted).
fn unframe(text: &str) -> String {
    let rest = text
        .strip_prefix("<tool_output tool=\"")
        .and_then(|r| r.split_once("\">\n"))
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("a tool result outside its frame:\n{text}"));
    rest.strip_suffix("</tool_output>")
        .unwrap_or_else(|| panic!("an unclosed frame:\n{text}"))
        .trim_end_matches('\n')
        .to_string()
}

/// Every file under `dir` (not following symlinks) with its size and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let m = e.path().symlink_metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), (m.len(), m.modified().unwrap()));
            }
        }
    }
    out
}

/// An executable that leaves a trace both ways a sandboxed program could: a
/// line on stderr (which git passes on to the model) and a marker file.
fn hook(dir: &Path, name: &str) -> String {
    let path = dir.join(format!("{name}.sh"));
    let marker = dir.join(format!("marker-{name}"));
    let secret = dir.join("secret.txt");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho {HOOK_RAN}{name} >&2\necho {HOOK_RAN}{name}\ntouch '{}'\n\
             cat '{}' 2>/dev/null\ncat \"$1\" 2>/dev/null\nexit 0\n",
            marker.display(),
            secret.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn assert_clean(results: &BTreeMap<String, String>, secrets: &[&str]) {
    for (cmd, text) in results {
        for s in secrets.iter().chain(&[HOOK_RAN]) {
            assert!(!text.contains(s), "`{cmd}` let `{s}` out:\n{text}");
        }
    }
}

fn assert_refused(results: &BTreeMap<String, String>, cmd: &str, why: &str) {
    let text = &results[cmd];
    assert!(
        text.starts_with("refused") && text.contains(why),
        "`{cmd}` was not refused ({why}):\n{text}"
    );
}

/// A repository whose `.git/config` tries every config-driven program and
/// file, and a work tree setting pointing outside.
struct Hostile {
    _dirs: (TempDir, TempDir),
    project: PathBuf,
    outside: PathBuf,
}

fn hostile_repo() -> Hostile {
    let project_dir = TempDir::new().unwrap();
    let outside_dir = TempDir::new().unwrap();
    let project = project_dir.path().canonicalize().unwrap();
    let outside = outside_dir.path().canonicalize().unwrap();
    write(&outside, "secret.txt", &format!("{SECRET_FILE}\n"));
    write(
        &outside,
        "mailmap",
        &format!("{SECRET_FILE} <{SECRET_FILE}@x> <test@example.com>\n"),
    );
    write(&outside, "revs", &format!("{SECRET_FILE}\n"));
    write(&outside, "attributes", "* diff=evil filter=evil\n");
    write(&outside, "include.cfg", "[alias]\n\tx = !sh\n");
    init_repo(&project);
    write(&project, "src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    write(&project, ".gitattributes", "*.rs diff=evil filter=evil\n");
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "initial"]);
    write(&project, "src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    let outside_s = outside.display().to_string();
    let set = |k: &str, v: &str| git(&project, &["config", "--local", k, v]);
    set("core.worktree", &outside_s);
    set("core.pager", &hook(&outside, "pager"));
    set("pager.log", &hook(&outside, "pagerlog"));
    set("core.fsmonitor", &hook(&outside, "fsmonitor"));
    set("diff.external", &hook(&outside, "external"));
    set("diff.evil.textconv", &hook(&outside, "textconv"));
    set("diff.evil.command", &hook(&outside, "command"));
    set("filter.evil.clean", &hook(&outside, "clean"));
    set("filter.evil.smudge", &hook(&outside, "smudge"));
    set("filter.evil.process", &hook(&outside, "process"));
    set("gpg.program", &hook(&outside, "gpg"));
    set("log.showSignature", "true");
    set("core.sshCommand", &hook(&outside, "ssh"));
    set("credential.helper", &hook(&outside, "credential"));
    set("mailmap.file", &format!("{outside_s}/mailmap"));
    set("log.mailmap", "true");
    set("blame.ignoreRevsFile", &format!("{outside_s}/revs"));
    set("core.attributesFile", &format!("{outside_s}/attributes"));
    set("core.excludesFile", &format!("{outside_s}/secret.txt"));
    set("diff.orderFile", &format!("{outside_s}/secret.txt"));
    set("log.diffMerges", "remerge");
    set("submodule.recurse", "true");
    set("core.untrackedCache", "true");
    Hostile {
        _dirs: (project_dir, outside_dir),
        project,
        outside,
    }
}

/// Plain git in the hostile repository really runs the configured programs and
/// reads the configured files, so the test below can fail. Markers are removed
/// afterwards.
fn controls(h: &Hostile) {
    let plain = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&h.project)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &h.outside)
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let here = format!("--work-tree={}", h.project.display());
    assert!(
        plain(&[&here, "diff"]).contains(HOOK_RAN),
        "control: external diff"
    );
    assert!(
        plain(&[&here, "status", "-v"]).contains(HOOK_RAN),
        "control: fsmonitor"
    );
    let no_process = ["-c", "filter.evil.process=", &here];
    plain(&[&no_process[..], &["diff"]].concat());
    plain(&[&no_process[..], &["diff", "--no-ext-diff"]].concat());
    assert!(
        plain(&["blame", "src/lib.rs"]).contains(SECRET_FILE),
        "control: blame"
    );
    assert!(
        plain(&["log", "--use-mailmap", "--format=%aN"]).contains(SECRET_FILE),
        "control: mailmap"
    );
    let mut ran = Vec::new();
    for e in std::fs::read_dir(&h.outside).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(hook) = name.strip_prefix("marker-") {
            ran.push(hook.to_string());
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    ran.sort();
    for hook in ["command", "fsmonitor", "process", "textconv"] {
        assert!(
            ran.iter().any(|r| r == hook),
            "control: {hook} did not run: {ran:?}"
        );
    }
}

/// Repository config that git honours cannot run a program, read a file
/// outside, move the work tree, or write: 25 commands, each seen by the model.
#[test]
fn hostile_repository_config_neither_runs_nor_reads_nor_writes() {
    let h = hostile_repo();
    let p = &h.project;
    let outside = h.outside.display().to_string();
    controls(&h);
    let index_before = std::fs::read(p.join(".git/index")).unwrap();
    let before = snapshot(p);
    let outside_before = snapshot(&h.outside);
    let commands: Vec<String> = [
        "git status",
        "git status --short --untracked-files=all",
        "git status -v",
        "git status -sv",
        "git diff",
        "git diff --stat HEAD",
        "git log -p",
        "git log -m -p --format='%G?%an'",
        "git show HEAD",
        "git log --use-mailmap --format=%aN%n%aE",
        "git shortlog -se HEAD",
        "git blame src/lib.rs",
        "git grep --untracked -e SECRET",
        "git ls-files --others",
        "git describe --always --dirty",
        "git describe --always --broken",
        "git log --remerge-diff",
        "git log --diff-merges=remerge",
        "git grep -e one HEAD",
        "git cat-file -p HEAD:src/lib.rs",
        "git diff-tree -p HEAD",
        "git log -L1,1:/etc/passwd",
        "git -c core.pager=sh log",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("git diff --no-index {outside}/secret.txt src/lib.rs"),
        format!("git log -L1,1:{outside}/secret.txt"),
        format!("git blame --contents {outside}/secret.txt src/lib.rs"),
        format!("rg --files {outside}"),
        "rg --files /etc".to_string(),
    ])
    .collect();
    assert!(commands.len() >= 25);
    let results = probe(p, &p.join(".home-unused"), &commands);
    if std::env::var_os("CRIT_TEST_SHOW").is_some() {
        for (c, r) in &results {
            eprintln!("=== {c}\n{r}");
        }
    }
    assert_clean(&results, &[SECRET_FILE, "root:x:0:0"]);

    assert_refused(&results, "git status -v", "textconv");
    assert_refused(&results, "git status -sv", "textconv");
    assert_refused(&results, "git describe --always --dirty", "write the index");
    assert_refused(
        &results,
        "git describe --always --broken",
        "write the index",
    );
    assert_refused(
        &results,
        "git log --remerge-diff",
        "writes temporary objects",
    );
    assert_refused(
        &results,
        "git log --diff-merges=remerge",
        "writes temporary objects",
    );
    assert_refused(&results, "git blame src/lib.rs", "blame.ignoreRevsFile");
    assert_refused(
        &results,
        "git log -L1,1:/etc/passwd",
        "outside the project root",
    );
    assert_refused(
        &results,
        "git -c core.pager=sh log",
        "before the subcommand",
    );
    assert_refused(&results, "rg --files /etc", "outside the project root");
    assert_refused(
        &results,
        &format!("rg --files {outside}"),
        "outside the project root",
    );
    // The real answers come through, from the project's own work tree.
    assert!(
        results["git diff"].contains("+    2"),
        "{}",
        results["git diff"]
    );
    assert!(
        results["git status"].contains("src/lib.rs"),
        "{}",
        results["git status"]
    );
    assert!(results["git log --use-mailmap --format=%aN%n%aE"].contains("test@example.com"));
    assert!(results["git cat-file -p HEAD:src/lib.rs"].contains("    1"));

    // Nothing ran (no marker), nothing was written, in the project or outside.
    let markers: Vec<_> = std::fs::read_dir(&h.outside)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("marker-"))
        .map(|e| e.file_name())
        .collect();
    assert!(markers.is_empty(), "programs ran: {markers:?}");
    assert_eq!(std::fs::read(p.join(".git/index")).unwrap(), index_before);
    assert_eq!(snapshot(p), before);
    assert_eq!(snapshot(&h.outside), outside_before);
}

/// A repository config that includes a file outside the project: git cannot
/// read it under the sandbox and refuses to run at all, so neither the file
/// nor anything it configures reaches the model.
#[test]
fn a_config_include_from_outside_stops_git() {
    let h = hostile_repo();
    let p = &h.project;
    let include = h.outside.join("include.cfg");
    std::fs::write(
        &include,
        format!("[alias]\n\tx = !sh\n[user]\n\tname = {SECRET_FILE}\n"),
    )
    .unwrap();
    git(
        p,
        &[
            "config",
            "--local",
            "include.path",
            &include.display().to_string(),
        ],
    );
    let commands: Vec<String> = ["git log --format=%an", "git x", "git status"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let results = probe(p, &p.join(".home-unused"), &commands);
    assert_clean(&results, &[SECRET_FILE]);
    assert_refused(&results, "git x", "`git x` is not allowed");
    if sandbox_active() {
        assert_refused(
            &results,
            "git status",
            "cannot read this repository's config",
        );
    }
}

/// Whether the kernel sandbox is active here (required under CI=true).
fn sandbox_active() -> bool {
    let active = crit_agent::sandbox::probe().is_active();
    assert!(
        active || std::env::var("CI").as_deref() != Ok("true"),
        "the kernel sandbox is required under CI=true"
    );
    if !active {
        eprintln!("notice: kernel sandbox not active; its assertions are skipped");
    }
    active
}

/// A private repository elsewhere on the machine, with a secret in a commit;
/// returns its `.git` and the secret blob's id.
fn private_repo(dir: &Path) -> (PathBuf, String) {
    let repo = dir.join("private");
    std::fs::create_dir_all(&repo).unwrap();
    init_repo(&repo);
    write(&repo, "key.txt", &format!("{SECRET_FILE}\n"));
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "private"]);
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD:key.txt"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let blob = String::from_utf8(out.stdout).unwrap().trim().to_string();
    (repo.join(".git"), blob)
}

/// Makes the project (first) point git at the private `.git` (second).
type PointAt = fn(&Path, &Path);

/// A `.git` file, a `.git` symlink, or a `commondir` in the project that
/// points git at another repository on the machine: git does not run.
#[test]
fn a_git_pointer_to_another_repository_is_refused() {
    let dir = TempDir::new().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (private_git, blob) = private_repo(&base);
    let commands: Vec<String> = [
        "git log -p",
        "git show HEAD:key.txt",
        "git status",
        "git grep -e SECRET HEAD",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("git cat-file -p {blob}")])
    .collect();
    // Each makes the project's `.git` point at the private repository.
    let layouts: [(&str, PointAt); 3] = [
        ("gitfile", |p, private| {
            write(p, ".git", &format!("gitdir: {}\n", private.display()));
        }),
        ("symlink", |p, private| {
            std::os::unix::fs::symlink(private, p.join(".git")).unwrap();
        }),
        ("commondir", |p, private| {
            init_repo(p);
            write(p, ".git/commondir", &format!("{}\n", private.display()));
        }),
    ];
    for (name, make) in layouts {
        let project = base.join(name);
        std::fs::create_dir_all(&project).unwrap();
        write(&project, "src/lib.rs", "pub fn one() {}\n");
        make(&project, &private_git);
        let before = snapshot(&private_git);
        let results = probe(&project, &base.join(".home"), &commands);
        assert_clean(&results, &[SECRET_FILE]);
        for cmd in &commands {
            let text = &results[cmd];
            assert!(
                text.starts_with("refused") && text.contains("another repository"),
                "{name}: `{cmd}` was not refused:\n{text}"
            );
        }
        assert_eq!(snapshot(&private_git), before, "{name}");
    }
}

/// What only the kernel stops: the argument policy allows raw object ids in
/// the project's own repository, and `objects/info/alternates` (which the
/// policy does not read) borrows objects from a private repository. Under the
/// sandbox git cannot read them.
#[test]
fn borrowed_objects_from_outside_are_unreadable_under_the_sandbox() {
    let dir = TempDir::new().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (private_git, blob) = private_repo(&base);
    let project = base.join("project");
    std::fs::create_dir_all(&project).unwrap();
    init_repo(&project);
    write(&project, "src/lib.rs", "pub fn one() {}\n");
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "initial"]);
    write(
        &project,
        ".git/objects/info/alternates",
        &format!("{}\n", private_git.join("objects").display()),
    );
    // Control: plain git reads the private blob through the alternates file.
    let plain = std::process::Command::new("git")
        .args(["cat-file", "-p", &blob])
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&plain.stdout).contains(SECRET_FILE));
    let commands = vec![
        format!("git cat-file -p {blob}"),
        format!("git show {blob}"),
        "git log --oneline".to_string(),
    ];
    let results = probe(&project, &base.join(".home"), &commands);
    if sandbox_active() {
        assert_clean(&results, &[SECRET_FILE]);
        assert!(
            results["git log --oneline"].contains("initial"),
            "{results:?}"
        );
    }
}

/// The allow-list of git options, seen from the model's side: the review
/// commands a model runs all the time come back with their output, and an
/// option outside the list (a made-up one a future git could add, an
/// abbreviation of a dangerous one, a misspelling) comes back refused with
/// the option named and what to use instead. Nothing is written.
#[test]
fn git_options_outside_the_allow_list_are_refused_by_name() {
    let dir = TempDir::new().unwrap();
    let p = dir.path().canonicalize().unwrap();
    init_repo(&p);
    write(&p, "src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "initial"]);
    git(&p, &["checkout", "-q", "-b", "feature"]);
    write(&p, "src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    write(&p, "src/two.rs", "pub fn two() {}\n");
    git(&p, &["add", "-A"]);
    git(&p, &["commit", "-q", "-m", "feature: two"]);
    let before = snapshot(&p);
    let commands: Vec<String> = [
        "git log --oneline -n 5 --stat",
        "git diff --stat main...HEAD",
        "git show --name-only HEAD",
        "git log --exec-helper=sh",
        "git diff --outp=written.txt",
        "git log --onelin",
        "git log --one-line",
        "git grep --open=vim -e one",
        "git status --verb",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let results = probe(&p, &p.join(".home-unused"), &commands);
    if std::env::var_os("CRIT_TEST_SHOW").is_some() {
        for (c, r) in &results {
            eprintln!("=== {c}\n{r}");
        }
    }
    let log = &results["git log --oneline -n 5 --stat"];
    assert!(
        log.contains("feature: two") && log.contains("initial") && log.contains("src/two.rs |"),
        "{log}"
    );
    let diff = &results["git diff --stat main...HEAD"];
    assert!(diff.contains("2 files changed"), "{diff}");
    let show = &results["git show --name-only HEAD"];
    assert!(
        show.contains("src/lib.rs") && show.contains("src/two.rs"),
        "{show}"
    );
    assert_refused(
        &results,
        "git log --exec-helper=sh",
        "`--exec-helper` is not among the read-only options this tool allows for `git log`",
    );
    assert_refused(
        &results,
        "git diff --outp=written.txt",
        "(`--outp` is a form of `--output`): it writes a file",
    );
    assert_refused(&results, "git log --onelin", "abbreviates `--oneline`");
    assert_refused(&results, "git log --one-line", "did you mean `--oneline`?");
    assert_refused(
        &results,
        "git grep --open=vim -e one",
        "it can run another program",
    );
    assert_refused(&results, "git status --verb", "use `git diff --cached`");
    assert_eq!(snapshot(&p), before);
}
