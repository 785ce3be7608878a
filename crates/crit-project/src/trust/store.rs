//! The trust store, `$XDG_STATE_HOME/crit/trust.json` (else
//! `~/.local/state/crit/trust.json`): for each project, by its canonical root,
//! the exec-capable settings its owner trusted with `crit trust`, each as the
//! SHA-256 of its file, key and value (see [`super::Gated::id`]) with a line
//! for people. Outside every repository, so no checkout can write it.
//!
//! Readers need no lock (the file is replaced atomically); `crit trust` and
//! `crit trust --revoke` hold an exclusive lock on `trust.json.lock` for the
//! read-modify-write, so two at once lose neither's project.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{Gated, TrustError};

const VERSION: u32 = 1;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    #[serde(default)]
    projects: BTreeMap<String, Trusted>,
}

/// What one project's owner trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trusted {
    /// When, as RFC 3339 UTC.
    pub trusted_at: String,
    /// Setting id to what it was (`base_url from .crit/config.yaml:3: …`).
    pub settings: BTreeMap<String, String>,
}

/// The store file.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    pub fn at(path: impl Into<PathBuf>) -> TrustStore {
        TrustStore { path: path.into() }
    }

    /// The standard location, from `XDG_STATE_HOME` or `HOME` (injected, so
    /// tests never touch the real home); `None` when neither is set.
    pub fn standard(env: &crit_os::Env) -> Option<TrustStore> {
        crit_os::dirs::state_dir(env).map(|d| TrustStore::at(d.join("trust.json")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the owner of the project at `root` (canonical) trusted, if anything.
    pub fn get(&self, root: &Path) -> Result<Option<Trusted>, TrustError> {
        Ok(self.read()?.projects.remove(&key(root)))
    }

    /// Trust exactly `settings` for the project at `root`, replacing what
    /// was trusted before (a setting no longer in the files is forgotten).
    pub fn trust(
        &self,
        root: &Path,
        settings: &[Gated],
        now: SystemTime,
    ) -> Result<Trusted, TrustError> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let entry = Trusted {
            trusted_at: crit_core::timestamp::rfc3339(crit_core::timestamp::unix_secs(now)),
            settings: settings
                .iter()
                .map(|s| (s.id(), format!("{} from {}: {}", s.key, s.at(), s.value)))
                .collect(),
        };
        file.projects.insert(key(root), entry.clone());
        self.write(&file)?;
        Ok(entry)
    }

    /// Forget the project at `root`; `false` when nothing was trusted.
    pub fn revoke(&self, root: &Path) -> Result<bool, TrustError> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let had = file.projects.remove(&key(root)).is_some();
        if had {
            self.write(&file)?;
        }
        Ok(had)
    }

    fn read(&self) -> Result<StoreFile, TrustError> {
        let text = match crit_core::files::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(StoreFile {
                    version: VERSION,
                    ..StoreFile::default()
                });
            }
            Err(source) => {
                return Err(TrustError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let file: StoreFile =
            serde_json::from_str(&text).map_err(|e| self.corrupt(e.to_string()))?;
        if file.version != VERSION {
            return Err(self.corrupt(format!(
                "version {} is not one this crit reads ({VERSION})",
                file.version
            )));
        }
        Ok(file)
    }

    fn corrupt(&self, why: String) -> TrustError {
        TrustError::Store {
            path: self.path.clone(),
            message: format!("{why}; delete it and run `crit trust` again in each project"),
        }
    }

    fn write(&self, file: &StoreFile) -> Result<(), TrustError> {
        let text = serde_json::to_string_pretty(file).map_err(|e| self.corrupt(e.to_string()))?;
        let failed = |e: crit_os::write::FsError| TrustError::Store {
            path: self.path.clone(),
            message: e.to_string(),
        };
        // Owner-only, in the user's state directory, no symlink followed.
        let (dir, name) = match (self.path.parent(), self.path.file_name()) {
            (Some(d), Some(n)) => (d, n),
            _ => return Err(self.corrupt("not a file path".into())),
        };
        let root = crit_os::write::Root::open_or_create(dir, 0o700).map_err(failed)?;
        root.write_atomic_with(
            name,
            format!("{text}\n").as_bytes(),
            crit_os::write::WriteOptions::private(),
        )
        .map_err(failed)
    }

    fn lock(&self) -> Result<File, TrustError> {
        let io = |path: &Path, source| TrustError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let mut name = self.path.clone().into_os_string();
        name.push(".lock");
        let path = PathBuf::from(name);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        file.lock().map_err(|e| io(&path, e))?;
        Ok(file)
    }
}

fn key(root: &Path) -> String {
    root.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_replaces_revoke_forgets_and_projects_stay_apart() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("state/crit/trust.json"));
        let (a, b) = (Path::new("/p/a"), Path::new("/p/b"));
        assert_eq!(store.get(a).unwrap(), None);
        let url = Gated::new(".crit/config.yaml", 3, "base_url", "http://x");
        let cmd = Gated::new(".crit/config.yaml", 4, "command", "[\"gate\"]");
        store
            .trust(a, &[url.clone(), cmd.clone()], SystemTime::UNIX_EPOCH)
            .unwrap();
        store
            .trust(b, std::slice::from_ref(&cmd), SystemTime::UNIX_EPOCH)
            .unwrap();
        let got = store.get(a).unwrap().unwrap();
        assert_eq!(got.trusted_at, "1970-01-01T00:00:00Z");
        assert!(got.settings.contains_key(&url.id()));
        assert_eq!(
            got.settings[&url.id()],
            "base_url from .crit/config.yaml:3: http://x"
        );
        store
            .trust(a, std::slice::from_ref(&cmd), SystemTime::UNIX_EPOCH)
            .unwrap();
        assert!(
            !store
                .get(a)
                .unwrap()
                .unwrap()
                .settings
                .contains_key(&url.id())
        );
        assert!(store.revoke(a).unwrap());
        assert!(!store.revoke(a).unwrap());
        assert_eq!(store.get(a).unwrap(), None);
        assert!(store.get(b).unwrap().is_some());
    }

    #[test]
    fn a_broken_store_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trust.json");
        std::fs::write(&path, "{not json").unwrap();
        let e = TrustStore::at(&path).get(Path::new("/p")).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("delete it"), "{text}");
    }
}
