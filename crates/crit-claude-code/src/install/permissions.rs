//! The permission rules `crit install claude-code` adds to `permissions.allow`,
//! and how uninstall takes exactly those back out.
//!
//! Claude Code asks before the model invokes a skill or runs a shell command,
//! and `claude -p` refuses outright what no rule allows. Each rule here is
//! one path crit installs, and no broader:
//!
//! - `Skill(prompt-review)`: the `!!!` hook (subscription mode) tells the
//!   model to invoke `/prompt-review`.
//! - `Bash(crit prompt:*)`: the `crit prompt` that command runs. Its own
//!   `allowed-tools` grants it too, but not every Claude Code version
//!   honours a skill's `allowed-tools`, and without the rule the review
//!   stops at "This command requires approval".
//! - `Skill(crit-review)`: `/crit-review` when the model invokes it (its
//!   `allowed-tools` grants `crit review code`).
//! - `Bash(crit plan:*)`: the plan gate tells the model to run `crit plan`
//!   on its plan, and the expert-review agent runs nothing else. Agent
//!   definitions cannot grant permissions, so this one must be a rule.
//!
//! A rule the file already allows is neither added again nor recorded, so
//! uninstall never takes out a rule the user had; a rule added is recorded
//! in the ledger and removed once (a copy the user added since stays).

use crate::json_doc::Json;

use super::merge::{InstallError, Ledger, note_created};

pub use crit_project::scope::installed::allow_rules;

/// Adds each of `rules` that `permissions.allow` lacks, recording it in
/// `ledger`; returns the rules added. `permissions` must be an object and
/// `allow` an array (entries that are not strings are left as they are).
pub fn merge(
    file: &str,
    doc: &mut Json,
    rules: &[String],
    ledger: &mut Ledger,
) -> Result<Vec<String>, InstallError> {
    let shape = |what: &str, expected| InstallError::Shape {
        file: file.into(),
        what: what.into(),
        expected,
    };
    let permissions = doc.get("permissions");
    if permissions.is_some_and(|p| !p.is_object()) {
        return Err(shape("`permissions`", "an object"));
    }
    if permissions
        .and_then(|p| p.get("allow"))
        .is_some_and(|a| a.as_array().is_none())
    {
        return Err(shape("`permissions.allow`", "an array"));
    }
    let missing: Vec<&String> = rules.iter().filter(|r| !allows(doc, r)).collect();
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    if doc.get("permissions").is_none() {
        doc.set("permissions", Json::object());
        note_created(ledger, "permissions");
    }
    let permissions = doc
        .get_mut("permissions")
        .ok_or_else(|| shape("`permissions`", "an object"))?;
    if permissions.get("allow").is_none() {
        permissions.set("allow", Json::Array(Vec::new()));
        note_created(ledger, "permissions.allow");
    }
    let allow = permissions
        .get_mut("allow")
        .and_then(Json::as_array_mut)
        .ok_or_else(|| shape("`permissions.allow`", "an array"))?;
    let mut added = Vec::new();
    for rule in missing {
        allow.push(Json::str(rule.clone()));
        if !ledger.permissions.contains(rule) {
            ledger.permissions.push(rule.clone());
        }
        added.push(rule.clone());
    }
    Ok(added)
}

/// Whether `permissions.allow` already holds `rule`.
fn allows(doc: &Json, rule: &str) -> bool {
    doc.get("permissions")
        .and_then(|p| p.get("allow"))
        .and_then(Json::as_array)
        .is_some_and(|a| a.iter().any(|r| r.as_str() == Some(rule)))
}

/// Takes one copy of each rule `ledger` lists out of `permissions.allow`, and
/// the array and object crit created once they are empty. Returns the rules
/// removed. Only `ours` (the rules install adds) ever come out: a project's
/// ledger is a file in the checkout, so anyone could have listed a rule of
/// the user's in it. Shapes crit does not understand are left alone.
pub fn unmerge(doc: &mut Json, ledger: &Ledger, ours: &[String]) -> Vec<String> {
    let created = |path: &str| ledger.created.iter().any(|c| c == path);
    let mut removed = Vec::new();
    let Some(permissions) = doc.get_mut("permissions").filter(|p| p.is_object()) else {
        return removed;
    };
    if let Some(allow) = permissions.get_mut("allow").and_then(Json::as_array_mut) {
        for rule in ledger.permissions.iter().filter(|r| ours.contains(r)) {
            if let Some(i) = allow.iter().position(|r| r.as_str() == Some(rule)) {
                allow.remove(i);
                removed.push(rule.clone());
            }
        }
    }
    if created("permissions.allow")
        && permissions
            .get("allow")
            .is_some_and(Json::is_empty_container)
    {
        permissions.remove("allow");
    }
    if created("permissions") && permissions.is_empty_container() {
        doc.remove("permissions");
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::merge::parse_settings;

    fn rules() -> Vec<String> {
        allow_rules("crit")
    }

    #[test]
    fn rules_are_added_once_and_only_those_added_come_out() {
        let original = r#"{
  "permissions": {
    "allow": ["Bash(npm test:*)", "Skill(prompt-review)", "Bash(npm test:*)", 7],
    "deny": ["Read(.env)"]
  }
}"#;
        let mut doc = parse_settings("s.json", original).unwrap();
        let before = doc.to_text("  ");
        let mut ledger = Ledger::default();
        let added = merge("s.json", &mut doc, &rules(), &mut ledger).unwrap();
        assert_eq!(
            added,
            [
                "Bash(crit prompt:*)",
                "Skill(crit-review)",
                "Bash(crit plan:*)"
            ]
        );
        assert_eq!(ledger.permissions, added);
        let once = doc.to_text("  ");
        assert!(
            merge("s.json", &mut doc, &rules(), &mut ledger)
                .unwrap()
                .is_empty()
        );
        assert_eq!(doc.to_text("  "), once);
        // The user allows one of crit's rules too, after install: it stays.
        let allow = doc
            .get_mut("permissions")
            .and_then(|p| p.get_mut("allow"))
            .and_then(Json::as_array_mut)
            .unwrap();
        allow.push(Json::str("Bash(crit plan:*)"));
        let removed = unmerge(&mut doc, &ledger, &rules());
        assert_eq!(
            removed,
            [
                "Bash(crit prompt:*)",
                "Skill(crit-review)",
                "Bash(crit plan:*)"
            ]
        );
        let allow = doc.get("permissions").and_then(|p| p.get("allow")).unwrap();
        assert_eq!(allow.as_array().unwrap().len(), 5);
        let allow = doc
            .get_mut("permissions")
            .and_then(|p| p.get_mut("allow"))
            .and_then(Json::as_array_mut)
            .unwrap();
        allow.pop();
        assert_eq!(doc.to_text("  "), before);
    }

    #[test]
    fn what_crit_created_goes_when_empty() {
        for original in ["{}", r#"{"permissions": {"deny": []}}"#] {
            let mut doc = parse_settings("s.json", original).unwrap();
            let before = doc.to_text("  ");
            let mut ledger = Ledger::default();
            assert_eq!(
                merge("s.json", &mut doc, &rules(), &mut ledger)
                    .unwrap()
                    .len(),
                4
            );
            assert_eq!(unmerge(&mut doc, &ledger, &rules()).len(), 4);
            assert_eq!(doc.to_text("  "), before, "{original}");
        }
    }

    #[test]
    fn shapes_crit_does_not_understand_are_refused() {
        for (bad, what) in [
            (r#"{"permissions": []}"#, "`permissions` is not an object"),
            (
                r#"{"permissions": "allow"}"#,
                "`permissions` is not an object",
            ),
            (
                r#"{"permissions": {"allow": "Bash"}}"#,
                "`permissions.allow` is not an array",
            ),
            (
                r#"{"permissions": {"allow": {"Bash": true}}}"#,
                "`permissions.allow` is not an array",
            ),
        ] {
            let mut doc = parse_settings("s.json", bad).unwrap();
            let before = doc.clone();
            let e = merge("s.json", &mut doc, &rules(), &mut Ledger::default()).unwrap_err();
            assert!(e.to_string().contains(what), "{bad}: {e}");
            assert_eq!(doc, before);
        }
    }
}
