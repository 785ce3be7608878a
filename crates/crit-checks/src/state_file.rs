//! `state.yaml` as `crit plan` writes it: expert-review's YAML, then one comment
//! line, `# crit-seal: HEX`, sealing the text to this session directory under
//! the user's key. A state edited by anyone else (an agent adding itself an
//! approval) no longer matches its seal and is refused.

use std::path::Path;

use crate::error::CheckError;
use crate::state::State;
use crit_os::seal::SealKey;

const SEAL_PREFIX: &str = "# crit-seal: ";
const PURPOSE: &str = "crit plan state v1";

/// Seals and checks the state of one session directory.
#[derive(Debug)]
pub struct StateSeal<'a> {
    key: &'a SealKey,
    /// The directory, canonical: a state copied from another session does not verify.
    dir: String,
}

impl<'a> StateSeal<'a> {
    /// A seal bound to `scope`: a session directory, or one plan's state
    /// file ([`crate::SessionPaths::seal_scope`]).
    pub fn new(key: &'a SealKey, scope: &Path) -> Self {
        let canonical = std::fs::canonicalize(scope).unwrap_or_else(|_| {
            // A state file not written yet: its directory, canonical, and its name.
            match (scope.parent(), scope.file_name()) {
                (Some(parent), Some(name)) => std::fs::canonicalize(parent)
                    .map_or_else(|_| scope.to_path_buf(), |p| p.join(name)),
                _ => scope.to_path_buf(),
            }
        });
        StateSeal {
            key,
            dir: canonical.to_string_lossy().into_owned(),
        }
    }

    /// The file's text: the state, then its seal.
    pub fn render(&self, state: &State) -> String {
        let body = state.to_yaml();
        let seal = self
            .key
            .seal(PURPOSE, &[self.dir.as_bytes(), body.as_bytes()]);
        format!("{body}{SEAL_PREFIX}{seal}\n")
    }

    /// The state in `text`. A malformed file resets to the default state with a
    /// warning (the strictest state there is). A state that claims something
    /// (edits, retries, approvals) without crit's seal is an error.
    pub fn read(&self, path: &Path, text: &str) -> Result<(State, Option<String>), CheckError> {
        let (state, warning) = State::parse_or_reset(path, text);
        if warning.is_some() || state == State::default() {
            return Ok((state, warning));
        }
        let sealed = split_seal(text).is_some_and(|(body, seal)| {
            self.key
                .verify(PURPOSE, &[self.dir.as_bytes(), body.as_bytes()], seal)
        });
        if sealed {
            Ok((state, None))
        } else {
            Err(CheckError::StateEdited {
                path: path.to_path_buf(),
            })
        }
    }
}

impl StateSeal<'_> {
    /// Whether `text` carries no seal at all: a state crit never wrote, not
    /// one of crit's edited since (that one stays refused).
    pub fn unsealed(text: &str) -> bool {
        split_seal(text).is_none()
    }

    /// A state file crit did not write (expert-review's own, or one edited
    /// since): untrusted. Its approvals are ignored; its counts (edits,
    /// retries) and history are kept, as a floor — they can only make the
    /// review stricter. The warning says so.
    pub fn floor(&self, path: &Path, text: &str) -> (State, String) {
        let (mut state, reset) = State::parse_or_reset(path, text);
        if let Some(w) = reset {
            return (state, w);
        }
        let ignored = std::mem::take(&mut state.approved);
        let approvals = match ignored.is_empty() {
            true => "it approves nothing".to_string(),
            false => format!("its approvals ({}) are ignored", ignored.join(", ")),
        };
        let counts = match state.retries.is_empty() {
            true => format!("{} edits", state.edits),
            false => format!(
                "{} edits, retries of {}",
                state.edits,
                state.retries.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        };
        let warning = format!(
            "{} was not written by `crit plan` (it carries no seal of crit's), so it is not trusted: {approvals}, and its counts ({counts}) are kept as a floor; it is written again, sealed",
            path.display()
        );
        (state, warning)
    }
}

/// The text before the seal line, and the seal; `None` when the last line is
/// not a seal.
fn split_seal(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let seal = trimmed[start..].strip_prefix(SEAL_PREFIX)?;
    Some((&text[..start], seal.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::HistoryEntry;

    #[test]
    fn only_the_state_crit_wrote_is_trusted() {
        let keys = tempfile::tempdir().unwrap();
        let key = SealKey::open_or_create(keys.path()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let seal = StateSeal::new(&key, dir.path());
        let path = dir.path().join("state.yaml");
        let mut state = State {
            edits: 2,
            ..State::default()
        };
        state.approved.push("no_eval".into());
        state.history.push(HistoryEntry {
            check: "no_eval".into(),
            fix: "eval → JSON.parse".into(),
            line: 3,
        });
        let text = seal.render(&state);
        assert!(text.starts_with(&state.to_yaml()));
        assert_eq!(seal.read(&path, &text).unwrap(), (state.clone(), None));
        // Edits of every kind break the seal.
        let edits = [
            text.replace("edits: 2", "edits: 0"),
            text.replace(
                "  - no_eval\n# crit",
                "  - no_eval\n  - no_console_log\n# crit",
            ),
            text.replace("approved:\n  - no_eval", "approved:\n  - no_evil"),
            state.to_yaml(),
            format!("{}# crit-seal: {}\n", state.to_yaml(), "0".repeat(64)),
            text.replace("# crit-seal: ", "# crit-seal: 00"),
            format!("{text}# a comment after the seal\n"),
        ];
        for bad in &edits {
            assert!(
                matches!(seal.read(&path, bad), Err(CheckError::StateEdited { .. })),
                "{bad}"
            );
        }
        // Copied from another session directory: not this one's.
        let other = tempfile::tempdir().unwrap();
        let err = StateSeal::new(&key, other.path()).read(&path, &text);
        assert!(matches!(err, Err(CheckError::StateEdited { .. })));
        // Only a state with no seal at all is read as untrusted; one of
        // crit's, edited, stays refused above.
        assert!(!StateSeal::unsealed(&text));
        assert!(StateSeal::unsealed(&edits[3]));
        // Untrusted, a state keeps its counts as a floor and loses its approvals.
        let (floor, warning) = seal.floor(&path, &edits[3]);
        assert_eq!(floor.edits, 2);
        assert!(floor.approved.is_empty());
        assert_eq!(floor.history, state.history);
        assert!(
            warning.contains("approvals (no_eval) are ignored"),
            "{warning}"
        );
        assert!(warning.contains("kept as a floor"), "{warning}");
        // A default state claims nothing; a malformed one resets (expert-review's behaviour).
        assert_eq!(seal.read(&path, "edits: 0\n").unwrap().0, State::default());
        let (s, w) = seal.read(&path, "edits: [\n").unwrap();
        assert_eq!(s, State::default());
        assert!(w.unwrap().contains("reset"));
    }
}
