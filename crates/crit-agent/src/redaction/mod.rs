//! Secrets in tool results. A file a tool reads is masked at the source, on
//! its whole text, before the tool cuts a slice of it ([`files`]); a command
//! that would cut slices of a file holding secrets is refused ([`commands`]);
//! and whatever a tool returns passes through the redactor once more before
//! the model sees it, pieces of known secrets included. Every secret found
//! joins the redactor, so a model that repeats one is redacted wherever crit
//! writes; what was removed is kept, with its file and line, so the review
//! can report it.

pub(crate) mod commands;
mod files;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crit_core::redact::{Options, Redaction, Redactor};
use serde_json::Value;

pub use files::{FileView, MAX_FILE_BYTES};

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
/// (sub-agents share the record, and the redactor shares what it learns with
/// every clone of it: pass the review's own).
#[derive(Debug, Clone)]
pub struct ToolRedactor {
    redactor: Redactor,
    found: Arc<Mutex<Vec<ToolRedaction>>>,
    /// Whether each file looked at holds secrets, while it is unchanged.
    scans: Arc<Mutex<HashMap<PathBuf, Scan>>>,
}

/// What a look at a file found, and the file's size and time then.
#[derive(Debug, Clone)]
struct Scan {
    stamp: (u64, Option<SystemTime>),
    secrets: Secrets,
}

/// Whether a file holds secrets, as far as a command that slices it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Secrets {
    None,
    /// This many masked (an ignored env file: every value).
    Found(usize),
    /// Not shown at all, for this reason.
    Refused(String),
}

impl Default for ToolRedactor {
    /// The process's redactor, copied: what these tools learn stays with them.
    fn default() -> Self {
        ToolRedactor::new(Redactor::process().detached())
    }
}

impl ToolRedactor {
    pub fn new(redactor: Redactor) -> Self {
        ToolRedactor {
            redactor,
            found: Arc::new(Mutex::new(Vec::new())),
            scans: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// The redactor, with every secret these tools found so far.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// `path` (canonical, shown to the model as `shown`) as `tool` may show
    /// it: secrets masked on its whole text, lines in place. Each secret is
    /// recorded and learned.
    pub fn view_file(
        &self,
        tool: &str,
        path: &Path,
        shown: &str,
        root: &Path,
    ) -> std::io::Result<FileView> {
        let stamp = files::stamp(path);
        let (view, masked) = files::view(&self.redactor, root, path, shown)?;
        let secrets = match &view {
            FileView::Refused(why) | FileView::TooLarge(why) => Secrets::Refused(why.clone()),
            _ if masked.is_empty() => Secrets::None,
            _ => Secrets::Found(masked.len()),
        };
        if let Some(stamp) = stamp {
            self.scans_lock()
                .insert(path.to_path_buf(), Scan { stamp, secrets });
        }
        if !masked.is_empty() {
            let rel = relative(&path.display().to_string(), root);
            let mut found = self.found_lock();
            found.extend(masked.into_iter().map(|(line, kind)| ToolRedaction {
                tool: tool.to_string(),
                path: Some(rel.clone()),
                line: Some(line),
                kind,
            }));
        }
        Ok(view)
    }

    /// Whether `path` holds secrets; looked at once while it is unchanged.
    pub(crate) fn secrets_in(&self, path: &Path, root: &Path) -> Secrets {
        let stamp = files::stamp(path);
        if let (Some(now), Some(scan)) = (stamp, self.scans_lock().get(path))
            && scan.stamp == now
        {
            return scan.secrets.clone();
        }
        let shown = relative(&path.display().to_string(), root);
        match files::view(&self.redactor, root, path, &shown) {
            Ok((FileView::Refused(why) | FileView::TooLarge(why), _)) => {
                self.remember(path, stamp, Secrets::Refused(why.clone()));
                Secrets::Refused(why)
            }
            Ok((_, masked)) => {
                let secrets = match masked.len() {
                    0 => Secrets::None,
                    n => Secrets::Found(n),
                };
                self.remember(path, stamp, secrets.clone());
                secrets
            }
            // Unreadable here is unreadable to the command too.
            Err(_) => Secrets::None,
        }
    }

    fn remember(&self, path: &Path, stamp: Option<(u64, Option<SystemTime>)>, secrets: Secrets) {
        if let Some(stamp) = stamp {
            self.scans_lock()
                .insert(path.to_path_buf(), Scan { stamp, secrets });
        }
    }

    fn scans_lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Scan>> {
        self.scans.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn found_lock(&self) -> std::sync::MutexGuard<'_, Vec<ToolRedaction>> {
        self.found.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `output` of `tool` called with `input`, redacted; each secret recorded
    /// and learned. A command's output may hold a secret in slices, so pieces
    /// of known secrets go too.
    pub fn apply(&self, tool: &str, input: &Value, output: &str, root: &Path) -> String {
        let r = self.redactor.redact_with(
            output,
            Options {
                learn: true,
                fragments: tool == "Bash",
                ..Options::default()
            },
        );
        if r.found.is_empty() {
            return r.text.into_owned();
        }
        let read_path = input
            .get("file_path")
            .and_then(Value::as_str)
            .map(|p| relative(p, root));
        let mut found = self.found_lock();
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
        let mut all = self.found_lock().clone();
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
