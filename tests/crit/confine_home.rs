//! A home directory kept in git (dotfiles) around a project that is not a
//! repository of its own: the project is the directory crit runs in, not the
//! home, so neither the change sent to the model nor any of the reviewer's
//! tools reaches `~/.ssh` or `~/.git-credentials`.

use crate::support;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{git, write};

const KEY: &str = "PRIVATE-KEY-MATERIAL-zz91";
const CREDS: &str = "https://bob:hunter2hunter2@github.com";
const BASHRC: &str = "export EDITOR=secret-editor-choice";

fn tool_texts(body: &Value) -> Vec<String> {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| match &b["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn a_home_kept_in_git_stays_out_of_the_review() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().canonicalize().unwrap();
    git(&h, &["init", "-q", "-b", "main"]);
    git(&h, &["config", "user.name", "T"]);
    git(&h, &["config", "user.email", "t@example.com"]);
    write(&h, ".git-credentials", &format!("{CREDS}\n"));
    write(&h, ".bashrc", "export EDITOR=vi\n");
    git(&h, &["add", "-A"]);
    git(&h, &["commit", "-q", "-m", "dotfiles"]);
    // Uncommitted in the home repository, outside the project.
    write(&h, ".bashrc", &format!("{BASHRC}\n"));
    write(&h, ".ssh/id_rsa", &format!("{KEY}\n"));
    let proj = h.join("code/app");
    write(&proj, "app.py", "print('hello')\n");

    let server = FakeServer::start_blocking();
    let abs = |rel: &str| h.join(rel).display().to_string();
    server.push(Step::reply(Reply::tool_uses(vec![
        ("Read", json!({"file_path": "../../.ssh/id_rsa"})),
        ("Read", json!({"file_path": abs(".git-credentials")})),
        (
            "Grep",
            json!({"pattern": "hunter2|PRIVATE", "path": abs(""), "output_mode": "content"}),
        ),
        ("Glob", json!({"pattern": "../../**/*"})),
        ("Bash", json!({"command": "git show HEAD:.git-credentials"})),
        (
            "Bash",
            json!({"command": "git show HEAD:../../.git-credentials"}),
        ),
        ("Bash", json!({"command": "git status --short"})),
        ("Bash", json!({"command": "git log -p"})),
        ("Bash", json!({"command": "git diff"})),
        (
            "Bash",
            json!({"command": format!("cat {}", abs(".ssh/id_rsa"))}),
        ),
    ])));
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "ok", "findings": []}),
    )));
    let out = support::crit(&proj, &server, None)
        .env("HOME", &h)
        .args(["review", "code", "--uncommitted", "--json", "--no-log"])
        .output()
        .unwrap();
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2, "{}", String::from_utf8_lossy(&out.stderr));
    // The change is the project's: app.py, not the home's .bashrc.
    let first = reqs[0].body.to_string();
    assert!(first.contains("print('hello')"), "{first}");
    assert!(
        !first.contains(".bashrc") && !first.contains("secret-editor"),
        "{first}"
    );
    // No tool reached outside the project.
    let results = tool_texts(&reqs[1].body);
    assert_eq!(results.len(), 10, "{results:#?}");
    for (i, r) in results.iter().enumerate() {
        for secret in [KEY, "hunter2hunter2", "secret-editor", ".bashrc"] {
            assert!(!r.contains(secret), "tool call {i} leaked {secret}: {r}");
        }
    }
    // Refused, not merely empty: the model is told why.
    for i in [0, 1, 2, 4, 5, 9] {
        assert!(
            results[i].contains("outside the project"),
            "call {i}: {}",
            results[i]
        );
    }
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["verdict"], "PASS", "{result}");
}
