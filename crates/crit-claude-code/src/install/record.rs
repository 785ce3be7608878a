//! What install changed in an agent's file, kept where the agent and the
//! checkout cannot write it: the user's state directory
//! (`$XDG_STATE_HOME/crit/installs/`), one record per file install touched.
//! The ledger beside the file (`crit-install.json`) is in the checkout, so
//! anyone may have written it: uninstall goes by this record, and with
//! none, takes out only crit's own entries and never deletes or empties
//! the file on the ledger's word.
//!
//! The record also keeps the file's bytes before crit's first install, so
//! uninstall gives back exactly those while the file is still as crit
//! wrote it (install reformats the JSON it merges into).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crit_llm::Env;

use super::merge::Ledger;
use super::sha256;

/// The largest record read back (it holds one settings file's text).
const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The file before crit's first install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum Before {
    /// There was no file.
    Absent,
    /// Its text.
    Text { text: String },
}

/// One file's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The file, as install resolved it.
    pub file: PathBuf,
    pub ledger: Ledger,
    /// Unknown when crit's entries were there before this record (an
    /// earlier install that kept no record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Before>,
    /// SHA-256 of the text install last wrote.
    pub written: String,
}

/// Where the records of files install touched live.
pub(crate) struct Records {
    dir: PathBuf,
}

impl Records {
    /// The user's records; `None` without a state directory (no HOME).
    pub(crate) fn of(env: &Env) -> Option<Records> {
        crit_os::dirs::state_dir(env).map(|d| Records {
            dir: d.join("installs"),
        })
    }

    /// The record's name: the file's resolved path, hashed.
    fn name(file: &Path) -> String {
        let resolved = match (file.parent().map(Path::canonicalize), file.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => file.to_path_buf(),
        };
        let hash = sha256(&resolved.to_string_lossy());
        format!("{}.json", &hash[..32])
    }

    /// The record of `file`, when there is one and it is about `file`.
    pub(crate) fn load(&self, file: &Path) -> Option<Record> {
        let root = crit_os::write::Root::open(&self.dir).ok()?;
        let bytes = root
            .read(
                Self::name(file),
                crit_core::files::InputLimits {
                    max_bytes: MAX_BYTES,
                },
            )
            .ok()?;
        let record: Record = serde_json::from_slice(&bytes).ok()?;
        (Self::name(&record.file) == Self::name(file)).then_some(record)
    }

    /// Keeps `record` (owner-only).
    pub(crate) fn save(&self, record: &Record) -> Result<(), crit_os::write::FsError> {
        let root = crit_os::write::Root::open_or_create(&self.dir, 0o700)?;
        let bytes = serde_json::to_vec_pretty(record).unwrap_or_default();
        root.write_atomic_with(
            Self::name(&record.file),
            &bytes,
            crit_os::write::WriteOptions::private(),
        )
    }

    pub(crate) fn forget(&self, file: &Path) {
        if let Ok(root) = crit_os::write::Root::open(&self.dir) {
            let _ = root.remove(Self::name(file));
        }
    }
}

/// The ledger uninstall goes by: the record's, else the checkout's with
/// nothing in it that deletes or empties a file (whether crit created the
/// file, or `hooks`), only crit's own entries, which uninstall checks
/// against what crit writes.
pub(crate) fn trusted_ledger(record: Option<&Record>, beside: Option<Ledger>) -> Option<Ledger> {
    if let Some(r) = record {
        return Some(r.ledger.clone());
    }
    beside.map(|l| Ledger {
        created_settings: false,
        created: l
            .created
            .into_iter()
            .filter(|c| c.starts_with("dir:"))
            .collect(),
        ..l
    })
}

/// The text to put back instead of unmerging: the file's bytes before
/// crit's first install, while `now` is exactly what crit last wrote.
pub(crate) fn restore<'a>(record: Option<&'a Record>, now: Option<&str>) -> Option<&'a Before> {
    let r = record?;
    let before = r.before.as_ref()?;
    (now.map(sha256).as_deref() == Some(r.written.as_str())).then_some(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_s_ledger_deletes_and_empties_nothing() {
        let beside = Ledger {
            created_settings: true,
            created: vec!["hooks".into(), "hooks.Stop".into(), "dir:.".into()],
            ..Ledger::default()
        };
        let l = trusted_ledger(None, Some(beside.clone())).unwrap();
        assert!(!l.created_settings);
        assert_eq!(l.created, ["dir:."]);
        let record = Record {
            file: "/x/hooks.json".into(),
            ledger: beside.clone(),
            before: Some(Before::Absent),
            written: sha256("{}\n"),
        };
        assert_eq!(trusted_ledger(Some(&record), None), Some(beside));
        assert_eq!(restore(Some(&record), Some("{}\n")), Some(&Before::Absent));
        assert_eq!(restore(Some(&record), Some("{ }\n")), None);
        assert_eq!(restore(Some(&record), None), None);
    }
}
