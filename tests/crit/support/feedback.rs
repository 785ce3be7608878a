//! A scripted history of the team's feedback: lines appended to the feedback
//! log in the project's state directory (`<dir>/.state`), as `crit respond`
//! and reviews write them.

use std::path::Path;
use std::time::SystemTime;

use crit_review::session::{Feedback, append_feedback, path_hash};
use serde_json::{Value, json};

/// Appends each event in `events` (a JSON object in the feedback line's
/// shape; `severity` defaults to `P2`, `repo` to the project at `dir`).
pub fn script(dir: &Path, events: &[Value]) {
    let state = dir.join(".state").display().to_string();
    let env = crit_os::Env::new().with("XDG_STATE_HOME", state);
    let repo = path_hash(&dir.canonicalize().unwrap().display().to_string());
    for e in events {
        let mut line = json!({"severity": "P2", "repo": repo});
        for (k, v) in e.as_object().unwrap() {
            line[k] = v.clone();
        }
        let event: Feedback = serde_json::from_value(line).unwrap();
        append_feedback(&env, &event, SystemTime::now()).unwrap();
    }
}

/// One event: `kind`/`outcome` on the finding `fp` of `reviewer`, by `author`.
pub fn event(kind: &str, outcome: &str, fp: &str, reviewer: &str, author: &str) -> Value {
    json!({"kind": kind, "outcome": outcome, "fingerprint": fp, "reviewer": reviewer,
           "author": author})
}
