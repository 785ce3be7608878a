//! Secrets in tool results: whatever a tool read (a file, a grep hit, a
//! command's output) passes through the redactor before the model sees it, and
//! what was removed is kept, with the file and line where a tool's output says
//! them, so the review can report it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crit_core::redact::{Redaction, Redactor};
use serde_json::Value;

/// One secret removed from a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRedaction {
    /// The tool that returned it.
    pub tool: String,
    /// Root-relative path of the file it came from, when the output says.
    pub path: Option<String>,
    pub line: Option<u32>,
    pub kind: &'static str,
}

/// The redactor of one agent's tools and what it removed; cheap to clone
/// (sub-agents share the record).
#[derive(Debug, Clone)]
pub struct ToolRedactor {
    redactor: Redactor,
    found: Arc<Mutex<Vec<ToolRedaction>>>,
}

impl Default for ToolRedactor {
    fn default() -> Self {
        ToolRedactor::new(Redactor::process().clone())
    }
}

impl ToolRedactor {
    pub fn new(redactor: Redactor) -> Self {
        ToolRedactor {
            redactor,
            found: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// `output` of `tool` called with `input`, redacted; each secret recorded.
    pub fn apply(&self, tool: &str, input: &Value, output: &str, root: &Path) -> String {
        let r = self.redactor.redact(output);
        if r.found.is_empty() {
            return r.text.into_owned();
        }
        let read_path = input
            .get("file_path")
            .and_then(Value::as_str)
            .map(|p| relative(p, root));
        let mut found = self.found.lock().unwrap_or_else(|p| p.into_inner());
        for hit in &r.found {
            let (path, line) = locate(tool, read_path.as_deref(), output, hit);
            found.push(ToolRedaction {
                tool: tool.to_string(),
                path,
                line,
                kind: hit.kind,
            });
        }
        r.text.into_owned()
    }

    /// Everything removed so far, each (path, line, kind) once.
    pub fn found(&self) -> Vec<ToolRedaction> {
        let mut all = self.found.lock().unwrap_or_else(|p| p.into_inner()).clone();
        all.sort_by(|a, b| (&a.path, a.line, a.kind).cmp(&(&b.path, b.line, b.kind)));
        all.dedup_by(|a, b| (&a.path, a.line, a.kind) == (&b.path, b.line, b.kind));
        all
    }
}

/// Where a hit sits, from the shape of the tool's output: `Read` numbers its
/// lines (`    12\ttext`), `Grep` prefixes them (`path:12:text`).
fn locate(
    tool: &str,
    read_path: Option<&str>,
    output: &str,
    hit: &Redaction,
) -> (Option<String>, Option<u32>) {
    let line_start = output[..hit.start].rfind('\n').map_or(0, |i| i + 1);
    let line = &output[line_start..];
    match tool {
        "Read" => {
            let n = line
                .split_once('\t')
                .and_then(|(n, _)| n.trim().parse().ok());
            (read_path.map(str::to_string), n)
        }
        "Grep" => {
            let mut parts = line.splitn(3, [':', '-']);
            match (parts.next(), parts.next().and_then(|n| n.parse().ok())) {
                (Some(p), Some(n)) if !p.is_empty() => (Some(p.to_string()), Some(n)),
                _ => (None, None),
            }
        }
        _ => (None, None),
    }
}

fn relative(path: &str, root: &Path) -> String {
    Path::new(path)
        .strip_prefix(root)
        .map_or_else(|_| path.to_string(), |p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_and_grep_outputs_locate_their_secrets() {
        let r = ToolRedactor::new(Redactor::new());
        let root = Path::new("/p");
        let read = "     1\tHOST=db\n     2\tDB_PASSWORD=hunter2hunter2\n";
        let out = r.apply("Read", &json!({"file_path": "/p/.env"}), read, root);
        assert_eq!(
            out,
            "     1\tHOST=db\n     2\tDB_PASSWORD=[REDACTED:password]\n"
        );
        let grep = "src/a.py:7:TOKEN = 'ghp_0123456789abcdefghijABCDEFGH'\n";
        r.apply("Grep", &json!({"pattern": "TOKEN"}), grep, root);
        r.apply(
            "Bash",
            &json!({"command": "git show"}),
            "+AKIAIOSFODNN7EXAMPLE",
            root,
        );
        assert_eq!(
            r.found(),
            [
                ToolRedaction {
                    tool: "Bash".into(),
                    path: None,
                    line: None,
                    kind: "aws-access-key"
                },
                ToolRedaction {
                    tool: "Read".into(),
                    path: Some(".env".into()),
                    line: Some(2),
                    kind: "password"
                },
                ToolRedaction {
                    tool: "Grep".into(),
                    path: Some("src/a.py".into()),
                    line: Some(7),
                    kind: "github-token"
                },
            ]
        );
    }
}
