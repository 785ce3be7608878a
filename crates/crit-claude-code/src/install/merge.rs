//! What `crit install claude-code` adds to a Claude Code `settings.json`, and
//! how `crit uninstall claude-code` takes exactly that back out.
//!
//! The merge keeps everything the file has: unknown keys, other hooks (also
//! under the same events), key order and indentation. A hook is added only
//! when no hook of that event already runs the same command, the status line
//! only when none is set. What was added is written to a ledger next to the
//! settings file (`crit-install.json`), and uninstall removes only what the
//! ledger lists and is still as crit wrote it, so a hook the user had before
//! (or changed since) stays.

use crate::json_doc::{self, Json};
use crit_project::scope::installed;

/// The ledger's file name, next to `settings.json`.
pub const LEDGER_FILE: &str = crit_project::scope::INSTALL_LEDGER;

/// One hook crit adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    pub event: &'static str,
    pub command: String,
    /// Seconds Claude Code waits before it cancels the hook (and goes on).
    pub timeout: u64,
    /// The tools a tool event's hook runs for (a regex on the tool name).
    pub matcher: Option<&'static str>,
    /// How the agent's file writes a hook.
    pub shape: Shape,
}

/// How an agent's hook file writes one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Claude Code's, Codex CLI's, Gemini CLI's: a group holding `hooks`.
    Grouped,
    /// Cursor's: `{"command": …}` in the event's list (`version` 1).
    Cursor,
    /// Copilot CLI's: `{"type": "command", "bash": …, "timeoutSec": …}`
    /// (`version` 1).
    Copilot,
}

/// The hooks for `crit` (the program's name or path); `SubagentStop` only
/// when asked for.
pub fn hooks(crit: &str, subagent_stop: bool) -> Vec<HookSpec> {
    installed::HOOKS
        .iter()
        .filter(|h| subagent_stop || h.event != "SubagentStop")
        .map(|h| HookSpec {
            event: h.event,
            command: installed::hook_command(crit, h.event),
            timeout: h.timeout,
            matcher: h.matcher,
            shape: Shape::Grouped,
        })
        .collect()
}

/// The `statusLine` value crit sets when there is none.
pub fn status_line(crit: &str) -> Json {
    Json::Object(vec![
        ("type".into(), Json::str("command")),
        ("command".into(), Json::str(format!("{crit} statusline"))),
        ("padding".into(), Json::Number(0.into())),
    ])
}

/// The `hooks` object for `specs`, as settings files and a plugin's
/// `hooks/hooks.json` write it.
pub fn hooks_object(specs: &[HookSpec]) -> Json {
    let mut hooks = Json::object();
    for s in specs {
        hooks.set(s.event, Json::Array(vec![group(s)]));
    }
    hooks
}

fn group(s: &HookSpec) -> Json {
    match s.shape {
        Shape::Grouped => {}
        Shape::Cursor => {
            return Json::Object(vec![("command".into(), Json::str(s.command.clone()))]);
        }
        Shape::Copilot => {
            return Json::Object(vec![
                ("type".into(), Json::str("command")),
                ("bash".into(), Json::str(s.command.clone())),
                ("timeoutSec".into(), Json::Number(s.timeout.into())),
            ]);
        }
    }
    let mut fields = Vec::new();
    if let Some(m) = s.matcher {
        fields.push(("matcher".into(), Json::str(m)));
    }
    fields.push((
        "hooks".into(),
        Json::Array(vec![Json::Object(vec![
            ("type".into(), Json::str("command")),
            ("command".into(), Json::str(s.command.clone())),
            ("timeout".into(), Json::Number(s.timeout.into())),
        ])]),
    ));
    Json::Object(fields)
}

pub use crit_project::scope::installed::{AddedFile, AddedHook, Ledger};

/// Why a settings file cannot be changed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{file}:{line}:{column}: not valid JSON ({message}); fix it, then run crit install again"
    )]
    NotJson {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {what} is not {expected}; crit changes nothing it does not understand")]
    Shape {
        file: String,
        what: String,
        expected: &'static str,
    },
    #[error("{}: not UTF-8 text", path.display())]
    NotText { path: std::path::PathBuf },
    #[error(
        "{file}:{line}:{column}: not a crit install ledger ({message}); it records what crit install added, so crit uninstall can take exactly that out"
    )]
    Ledger {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("--user needs HOME to be set")]
    NoHome,
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Read(#[from] crit_core::files::ReadError),
    #[error("{0}")]
    Fs(#[from] crit_os::write::FsError),
}

/// The settings text, parsed (empty text is an empty object).
pub fn parse_settings(file: &str, text: &str) -> Result<Json, InstallError> {
    if text.trim().is_empty() {
        return Ok(Json::object());
    }
    let doc = json_doc::parse(text).map_err(|e| InstallError::NotJson {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if !doc.is_object() {
        return Err(InstallError::Shape {
            file: file.into(),
            what: "the file".into(),
            expected: "a JSON object",
        });
    }
    Ok(doc)
}

/// Adds `specs` and, when none is set, `status`; records what it added in
/// `ledger`. Returns what it added, for people.
pub fn merge(
    file: &str,
    doc: &mut Json,
    specs: &[HookSpec],
    status: Option<&Json>,
    ledger: &mut Ledger,
) -> Result<Vec<String>, InstallError> {
    let shape = |what: String, expected| InstallError::Shape {
        file: file.into(),
        what,
        expected,
    };
    let mut added = Vec::new();
    if specs.iter().any(|s| s.shape != Shape::Grouped) && doc.get("version").is_none() {
        doc.set("version", Json::Number(1.into()));
        note_created(ledger, "version");
    }
    if doc.get("hooks").is_none() {
        doc.set("hooks", Json::object());
        note_created(ledger, "hooks");
    }
    let hooks = doc
        .get_mut("hooks")
        .filter(|h| h.is_object())
        .ok_or_else(|| shape("`hooks`".into(), "an object"))?;
    for s in specs {
        if hooks.get(s.event).is_none() {
            hooks.set(s.event, Json::Array(Vec::new()));
            note_created(ledger, &format!("hooks.{}", s.event));
        }
        let groups = hooks
            .get_mut(s.event)
            .and_then(Json::as_array_mut)
            .ok_or_else(|| shape(format!("`hooks.{}`", s.event), "an array"))?;
        if groups.iter().any(|g| runs_as(g, &s.command, s)) {
            continue;
        }
        // One prompt hook a session: the prompt review's notes the
        // session's start too, so it takes the place of crit's note-only
        // hook, and a note-only hook is not added beside it.
        if let Some(full) = s.command.strip_suffix(installed::NOTE_ONLY)
            && groups.iter().any(|g| runs_as(g, full, s))
        {
            continue;
        }
        let note_only = AddedHook {
            event: s.event.into(),
            command: format!("{} {}", s.command, installed::NOTE_ONLY),
        };
        if ledger.hooks.contains(&note_only) && remove_one(groups, &note_only.command) {
            ledger.hooks.retain(|h| *h != note_only);
        }
        groups.push(group(s));
        let entry = AddedHook {
            event: s.event.into(),
            command: s.command.clone(),
        };
        if !ledger.hooks.contains(&entry) {
            ledger.hooks.push(entry);
        }
        added.push(format!("{} hook", s.event));
    }
    if let Some(status) = status
        && doc.get("statusLine").is_none()
    {
        doc.set("statusLine", status.clone());
        ledger.status_line = serde_json::to_value(status).ok();
        added.push("status line".into());
    }
    ledger.version = 1;
    Ok(added)
}

pub(crate) fn note_created(ledger: &mut Ledger, path: &str) {
    if !ledger.created.iter().any(|c| c == path) {
        ledger.created.push(path.to_string());
    }
}

/// A unified diff of the settings text, both sides labelled `label`.
pub fn diff(before: &str, after: &str, label: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(label, label)
        .to_string()
}

/// A hook group that runs `command` as `spec` would have it run: for the
/// events `spec` names (its matcher, or every one) and given at least its
/// time at a stop. A checkout's file can hold crit's command under a matcher
/// that never matches or, at a stop, with a 1 ms timeout; that is not crit's
/// hook, and install adds its own beside it rather than call it "already
/// there".
fn runs_as(group: &Json, command: &str, spec: &HookSpec) -> bool {
    let matcher = group.get("matcher").and_then(Json::as_str);
    let matcher_ok = match (spec.matcher, matcher) {
        (Some(want), Some(m)) => m == want,
        (Some(_), None) => false,
        (None, m) => matches!(m, None | Some("" | "*")),
    };
    // A user's shorter timeout on the prompt review is theirs to choose;
    // on the review gate it lets the agent stop unreviewed.
    let gate = matches!(
        spec.event,
        "Stop" | "SubagentStop" | "AfterAgent" | "stop" | "agentStop" | "subagentStop"
    );
    let timeout_ok = |h: &Json| {
        !gate
            || ["timeout", "timeoutSec"]
                .iter()
                .filter_map(|k| h.get(k))
                .all(|t| match t {
                    Json::Number(n) => n.as_f64().is_some_and(|t| t >= spec.timeout as f64),
                    _ => false,
                })
    };
    let hook_ok = |h: &Json| is_command(h, command) && timeout_ok(h);
    matcher_ok
        && (hook_ok(group)
            || group
                .get("hooks")
                .and_then(Json::as_array)
                .is_some_and(|hs| hs.iter().any(hook_ok)))
}

/// A hook running `command` (Copilot CLI names it `bash`).
fn is_command(hook: &Json, command: &str) -> bool {
    ["command", "bash"].iter().any(|k| {
        hook.get(k)
            .and_then(Json::as_str)
            .is_some_and(|c| c.trim() == command.trim())
    })
}

/// Takes out what `ledger` lists of crit's own hooks (`ours`) and status
/// line (`our_status`); returns what it removed, for people. A project's
/// ledger is in the checkout, where anyone could list a hook or status line
/// of the user's: only crit's are ever removed.
pub fn unmerge(
    doc: &mut Json,
    ledger: &Ledger,
    ours: &[HookSpec],
    our_status: &Json,
) -> Vec<String> {
    let mut removed = Vec::new();
    let is_ours = |a: &&AddedHook| {
        ours.iter()
            .any(|s| s.event == a.event && s.command.trim() == a.command.trim())
    };
    if let Some(hooks) = doc.get_mut("hooks").filter(|h| h.is_object()) {
        for added in ledger.hooks.iter().filter(is_ours) {
            let Some(groups) = hooks.get_mut(&added.event).and_then(Json::as_array_mut) else {
                continue;
            };
            if remove_one(groups, &added.command) {
                removed.push(format!("{} hook", added.event));
            }
            let created = ledger
                .created
                .iter()
                .any(|c| *c == format!("hooks.{}", added.event));
            if created && groups.is_empty() {
                hooks.remove(&added.event);
            }
        }
    }
    let hooks_created = ledger.created.iter().any(|c| c == "hooks");
    if hooks_created && doc.get("hooks").is_some_and(Json::is_empty_container) {
        doc.remove("hooks");
    }
    // The `version` crit set, once nothing else is left.
    if ledger.created.iter().any(|c| c == "version")
        && let Json::Object(pairs) = doc
        && pairs.iter().all(|(k, _)| k == "version")
    {
        doc.remove("version");
    }
    let our_status = serde_json::to_value(our_status).ok();
    if let Some(ours) = ledger
        .status_line
        .as_ref()
        .filter(|l| Some(*l) == our_status.as_ref())
    {
        let now = doc
            .get("statusLine")
            .and_then(|v| serde_json::to_value(v).ok());
        if now.as_ref() == Some(ours) {
            doc.remove("statusLine");
            removed.push("status line".into());
        }
    }
    removed
}

/// What `ledger` lists of crit's own hooks (`ours`), for people.
pub fn listed(ledger: &Ledger, ours: &[HookSpec]) -> Vec<String> {
    ledger
        .hooks
        .iter()
        .filter(|a| {
            ours.iter()
                .any(|s| s.event == a.event && s.command.trim() == a.command.trim())
        })
        .map(|a| format!("{} hook", a.event))
        .collect()
}

/// Removes the first hook running `command` (and its group, when that leaves
/// the group with no hooks and nothing else).
fn remove_one(groups: &mut Vec<Json>, command: &str) -> bool {
    // An entry of its own (Cursor's, Copilot CLI's).
    if let Some(i) = groups.iter().position(|g| is_command(g, command)) {
        groups.remove(i);
        return true;
    }
    for gi in 0..groups.len() {
        let Some(hs) = groups[gi].get_mut("hooks").and_then(Json::as_array_mut) else {
            continue;
        };
        let Some(hi) = hs.iter().position(|h| is_command(h, command)) else {
            continue;
        };
        hs.remove(hi);
        let bare = match &groups[gi] {
            Json::Object(pairs) => pairs
                .iter()
                .all(|(k, v)| k == "matcher" || (k == "hooks" && v.is_empty_container())),
            _ => false,
        };
        if bare {
            groups.remove(gi);
        }
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(doc: &Json) -> String {
        doc.to_text("  ")
    }

    #[test]
    fn merge_then_unmerge_restores_the_file() {
        let original = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "x-unknown": {"keep": [1, 2]}
}"#;
        let mut doc = parse_settings("s.json", original).unwrap();
        let before = text(&doc);
        let mut ledger = Ledger::default();
        let specs = hooks("crit", false);
        let added = merge(
            "s.json",
            &mut doc,
            &specs,
            Some(&status_line("crit")),
            &mut ledger,
        )
        .unwrap();
        assert_eq!(
            added,
            [
                "UserPromptSubmit hook",
                "Stop hook",
                "PreToolUse hook",
                "status line"
            ]
        );
        let once = text(&doc);
        assert!(once.contains("say done"), "{once}");
        // Idempotent.
        let again = merge(
            "s.json",
            &mut doc,
            &specs,
            Some(&status_line("crit")),
            &mut ledger,
        )
        .unwrap();
        assert!(again.is_empty());
        assert_eq!(text(&doc), once);
        let removed = unmerge(
            &mut doc,
            &ledger,
            &hooks("crit", true),
            &status_line("crit"),
        );
        assert_eq!(removed.len(), 4, "{removed:?}");
        assert_eq!(text(&doc), before);
    }

    #[test]
    fn a_hook_the_user_had_is_neither_added_twice_nor_removed() {
        let mut doc = parse_settings(
            "s.json",
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "crit hook claude-code Stop", "timeout": 900}]}]}, "statusLine": {"type": "command", "command": "mine"}}"#,
        )
        .unwrap();
        let before = text(&doc);
        let mut ledger = Ledger::default();
        let added = merge(
            "s.json",
            &mut doc,
            &hooks("crit", false),
            Some(&status_line("crit")),
            &mut ledger,
        )
        .unwrap();
        assert_eq!(added, ["UserPromptSubmit hook", "PreToolUse hook"]);
        assert!(ledger.status_line.is_none());
        unmerge(
            &mut doc,
            &ledger,
            &hooks("crit", true),
            &status_line("crit"),
        );
        assert_eq!(text(&doc), before);
    }

    /// A review tells crit's entries from the user's by these shapes.
    #[test]
    fn what_install_writes_is_what_a_review_knows_as_crits() {
        let value = |j: &Json| serde_json::to_value(j).unwrap();
        for (spec, hook) in hooks("crit", true).iter().zip(installed::HOOKS) {
            assert_eq!(value(&group(spec)), installed::hook_group("crit", &hook));
        }
        assert_eq!(value(&status_line("crit")), installed::status_line("crit"));
    }

    #[test]
    fn a_ledger_listing_the_users_own_hook_or_status_line_removes_neither() {
        let original = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, "statusLine": {"type": "command", "command": "mine"}}"#;
        let mut doc = parse_settings("s.json", original).unwrap();
        let before = text(&doc);
        // What a checkout's ledger could say.
        let ledger: Ledger = serde_json::from_value(serde_json::json!({
            "version": 1,
            "hooks": [{"event": "Stop", "command": "say done"}],
            "status_line": {"type": "command", "command": "mine"},
            "created": ["hooks", "hooks.Stop"]
        }))
        .unwrap();
        let removed = unmerge(
            &mut doc,
            &ledger,
            &hooks("crit", true),
            &status_line("crit"),
        );
        assert!(removed.is_empty(), "{removed:?}");
        assert_eq!(text(&doc), before);
    }

    #[test]
    fn shapes_crit_does_not_understand_are_refused() {
        for bad in [r#"{"hooks": []}"#, r#"{"hooks": {"Stop": {}}}"#] {
            let mut doc = parse_settings("s.json", bad).unwrap();
            let e = merge(
                "s.json",
                &mut doc,
                &hooks("crit", false),
                None,
                &mut Ledger::default(),
            )
            .unwrap_err();
            assert!(e.to_string().contains("crit changes nothing"), "{e}");
        }
        let e = parse_settings("s.json", "{\n  \"a\": 1,\n}").unwrap_err();
        assert!(
            e.to_string().starts_with("s.json:3:1: not valid JSON"),
            "{e}"
        );
        assert!(parse_settings("s.json", "[1]").is_err());
    }
}
