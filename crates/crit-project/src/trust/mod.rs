//! Whose rules judge a change. The change under review may be hostile, and
//! its checkout carries the files that configure crit (`.crit/`, `.claude/`).
//! Settings there that can run a program, move a credential or relax the gate
//! ("exec-capable": `base_url`, `reviewer: command`, template hooks, MCP
//! servers, `${env:…}`, suppressions, a laxer `fail_on`, …) are honoured only
//! from a trusted source:
//!
//! - the user's own config, flags and environment (never asked about here);
//! - project files whose exact exec-capable settings the user trusted with
//!   `crit trust` (like direnv's `allow` or mise's `trust`): the store keeps a
//!   hash per setting, so editing a comment or the model asks nothing, and a
//!   changed or new setting is ignored until trusted again;
//! - in CI, or with `--rules-from REF`, the project's files at the base
//!   revision, which the repository's owner merged: the change's own edits to
//!   them are not read at all. In CI with no base to read, exec-capable
//!   project settings are ignored (fail closed) and the review still runs.
//!
//! Every loader reads project rule files through [`ProjectRules::read`] and
//! asks [`ProjectRules::allow`] about each exec-capable setting; an ignored
//! setting is warned about once, naming it and how to trust it.

pub mod ci;
mod store;
mod survey;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crit_os::seal::Sha256;

pub use ci::{Base, BaseError, Ci, CiEnv};
pub use store::{TrustStore, Trusted};
pub use survey::{Survey, survey_with};

use crate::scope::ScopeError;
use crate::scope::revision::Revision;

/// One exec-capable setting in a project file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gated {
    /// Path from the project root, `/`-separated (`.crit/config.yaml`).
    pub file: String,
    /// 1-based; 0 where the format gives none (a JSON run config).
    pub line: u64,
    /// The setting as users write it: `base_url`, `hooks`, `mcp_servers.kb`,
    /// `${env:TOKEN}`, `suppression`.
    pub key: String,
    /// Its value as written (never expanded), as one canonical text.
    pub value: String,
}

impl Gated {
    pub fn new(
        file: impl Into<String>,
        line: u64,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Gated {
        Gated {
            file: file.into(),
            line,
            key: key.into(),
            value: value.into(),
        }
    }

    /// What the trust store keeps: SHA-256 of file, key and value. Not the
    /// line, so moving a setting within its file does not ask again.
    pub fn id(&self) -> String {
        let mut h = Sha256::new();
        for part in ["crit-trust-v1", &self.file, &self.key, &self.value] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.finish().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// `file:line`, or the file alone.
    pub fn at(&self) -> String {
        match self.line {
            0 => self.file.clone(),
            n => format!("{}:{n}", self.file),
        }
    }
}

/// Where a project's rule files are read from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The working tree.
    WorkTree,
    /// A commit: the change's base in CI, or `--rules-from REF`.
    Revision(Box<Base>),
}

#[derive(Debug, Clone)]
enum Policy {
    /// Honour what the trust store holds for this project (setting ids).
    Store(BTreeSet<String>),
    /// Honour nothing exec-capable, for this reason.
    Deny(String),
    /// Honour everything: a commit the owner merged, or files a library
    /// caller (or `crit trust`, listing them) vouches for.
    Allow,
}

/// One question a loader asked, and the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub setting: Gated,
    pub allowed: bool,
}

/// A project file's text and the label it goes by in messages and provenance
/// (`./.crit/config.yaml`, or `main:.crit/config.yaml` at a commit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesFile {
    pub text: String,
    pub label: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the trust store {}: {message}", path.display())]
    Store { path: PathBuf, message: String },
    #[error("--rules-from {rev}: {message}")]
    RulesFrom { rev: String, message: String },
    #[error("reading the project's rules at {at}: {source}")]
    Git { at: String, source: ScopeError },
}

/// The rules that apply to one project, and the answers given so far.
#[derive(Debug)]
pub struct ProjectRules {
    /// As given: labels of working-tree files start with it.
    root: PathBuf,
    /// Canonical: the trust store's key.
    canonical: PathBuf,
    source: Source,
    policy: Policy,
    ci: Option<CiEnv>,
    asked: Mutex<Vec<Asked>>,
    /// Files at a commit that the working tree has changed: said once each.
    noted: Mutex<BTreeSet<String>>,
    /// Warnings held back until [`ProjectRules::release_warnings`].
    held: Mutex<Option<Vec<String>>>,
}

/// Why a project in CI has no base to read rules from.
const NO_BASE: &str = "in CI, project settings that run programs, move credentials or relax the gate are read from the base of the pull or merge request, and this job names none; pass --rules-from REF (e.g. --rules-from origin/main) to name the revision whose rules apply";

impl ProjectRules {
    /// The rules for the project at `root`: `rules_from` (`--rules-from`)
    /// when given; else in CI the base of the pull or merge request, or,
    /// when there is none to read, the working tree with nothing exec-capable
    /// honoured; else the working tree and the user's trust store.
    pub fn discover(
        root: &Path,
        env: &crit_os::Env,
        rules_from: Option<&str>,
    ) -> Result<ProjectRules, TrustError> {
        let ci = ci::detect(env);
        if let Some(rev) = rules_from {
            let found = Revision::resolve(root, rev, env).map_err(|e| TrustError::RulesFrom {
                rev: rev.to_string(),
                message: e.to_string(),
            })?;
            let revision = found.ok_or_else(|| TrustError::RulesFrom {
                rev: rev.to_string(),
                message: "no branch, tag or commit has this name here (a remote branch may need `git fetch` first)".into(),
            })?;
            let base = Base {
                revision,
                name: rev.to_string(),
                from: "--rules-from".into(),
            };
            return Ok(ProjectRules::new(
                root,
                Source::Revision(Box::new(base)),
                Policy::Allow,
                ci,
            ));
        }
        if let Some(c) = &ci {
            let (source, policy) = match &c.base {
                None => (Source::WorkTree, Policy::Deny(NO_BASE.into())),
                Some(b) => match ci::locate(root, c.ci, b, env) {
                    Ok(base) => (Source::Revision(Box::new(base)), Policy::Allow),
                    Err(why) => (
                        Source::WorkTree,
                        Policy::Deny(format!(
                            "in CI, these come from the base revision, which cannot be read: {why}"
                        )),
                    ),
                },
            };
            return Ok(ProjectRules::new(root, source, policy, ci));
        }
        Ok(ProjectRules::new(
            root,
            Source::WorkTree,
            store_policy(root, env),
            ci,
        ))
    }

    /// The project's files as committed at HEAD, their exec-capable
    /// settings honoured as the user trusted them: for a gate in front of an
    /// agent that writes the working tree (Claude Code's Stop hook), so no
    /// setting, template or suppression the agent wrote moves its own review.
    /// A repository with no commit yet has no project files.
    pub fn committed(root: &Path, env: &crit_os::Env) -> Result<ProjectRules, TrustError> {
        ProjectRules::committed_at(root, None, env)
    }

    /// [`ProjectRules::committed`] at `start`, the commit an agent's session
    /// began at (HEAD when `None`): what the agent commits during the
    /// session (a model, a template, a suppression) is not read either. Only
    /// the user's own config, flags and environment change the gate's
    /// settings from there. A `start` the repository no longer has is an
    /// error, never a fall back to HEAD.
    pub fn committed_at(
        root: &Path,
        start: Option<&str>,
        env: &crit_os::Env,
    ) -> Result<ProjectRules, TrustError> {
        let at = start.unwrap_or("HEAD");
        let git = |source| TrustError::Git {
            at: at.to_string(),
            source,
        };
        let revision = match (Revision::resolve(root, at, env).map_err(git)?, start) {
            (Some(r), _) => r,
            (None, None) => Revision::empty(root, env).map_err(git)?,
            (None, Some(s)) => {
                return Err(TrustError::Git {
                    at: s.to_string(),
                    source: ScopeError::UnknownRevision { rev: s.to_string() },
                });
            }
        };
        let (name, from) = match start {
            None => (
                "HEAD".to_string(),
                "the last commit: the review gate reads no settings from the working tree".to_string(),
            ),
            Some(_) => (
                revision.short().to_string(),
                "the commit the agent's session began at: the review gate reads no settings from the working tree or from commits made since".to_string(),
            ),
        };
        let base = Base {
            revision,
            name,
            from,
        };
        Ok(ProjectRules::new(
            root,
            Source::Revision(Box::new(base)),
            store_policy(root, env),
            ci::detect(env),
        ))
    }

    /// [`ProjectRules::committed`] for a session that began before the
    /// repository's first commit: every commit is the session's, so no
    /// project file is read (the empty tree), only the user's own settings.
    pub fn before_first_commit(
        root: &Path,
        env: &crit_os::Env,
    ) -> Result<ProjectRules, TrustError> {
        let revision = Revision::empty(root, env).map_err(|source| TrustError::Git {
            at: "the empty tree".into(),
            source,
        })?;
        let base = Base {
            revision,
            name: "the empty tree".into(),
            from: "the agent's session began before the repository's first commit: the review gate reads no project settings from the commits made since".into(),
        };
        Ok(ProjectRules::new(
            root,
            Source::Revision(Box::new(base)),
            store_policy(root, env),
            ci::detect(env),
        ))
    }

    /// These rules, honouring from the trust store only what `ids` also
    /// holds: what the user trusted when an agent's session began, so a
    /// setting trusted during the session (by the agent, which can run
    /// `crit trust` or edit the store) does not move the session's gate.
    pub fn trusted_only(mut self, ids: &BTreeSet<String>) -> ProjectRules {
        if let Policy::Store(now) = &self.policy {
            self.policy = Policy::Store(now.intersection(ids).cloned().collect());
        }
        self
    }

    /// The ids of the settings the user's trust store holds for the project
    /// at `root` now; `None` when there is no store to read.
    pub fn trusted_ids(root: &Path, env: &crit_os::Env) -> Option<BTreeSet<String>> {
        match store_policy(root, env) {
            Policy::Store(ids) => Some(ids),
            _ => None,
        }
    }

    /// The working tree, with nothing exec-capable honoured (`why` says so
    /// in each warning).
    pub fn untrusted(root: &Path, why: impl Into<String>) -> ProjectRules {
        ProjectRules::new(root, Source::WorkTree, Policy::Deny(why.into()), None)
    }

    /// The working tree, every setting honoured: for a library caller that
    /// vouches for the files, and for `crit trust` listing what it is about
    /// to trust ([`ProjectRules::asked`]).
    pub fn trusting(root: &Path) -> ProjectRules {
        ProjectRules::new(root, Source::WorkTree, Policy::Allow, None)
    }

    fn new(root: &Path, source: Source, policy: Policy, ci: Option<CiEnv>) -> ProjectRules {
        ProjectRules {
            root: root.to_path_buf(),
            canonical: canonical(root),
            source,
            policy,
            ci,
            asked: Mutex::new(Vec::new()),
            noted: Mutex::new(BTreeSet::new()),
            // Held from the start: a front end reads its settings before its
            // log output is set up, then calls `release_warnings` (or the
            // warnings are logged when the rules are dropped).
            held: Mutex::new(Some(Vec::new())),
        }
    }

    /// Log the warnings held back so far (every warning is held until
    /// then), and log later ones as they come.
    pub fn release_warnings(&self) {
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner()).take();
        for w in held.unwrap_or_default() {
            tracing::warn!("{w}");
        }
    }

    fn warn(&self, message: String) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        match held.as_mut() {
            Some(list) => list.push(message),
            None => tracing::warn!("{message}"),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The project root, canonical: the trust store's key.
    pub fn canonical_root(&self) -> &Path {
        &self.canonical
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The CI this runs in, if any.
    pub fn ci(&self) -> Option<&CiEnv> {
        self.ci.as_ref()
    }

    /// For `crit config`: where the rules come from, and why.
    pub fn describe(&self) -> (String, String) {
        match (&self.source, &self.policy) {
            (Source::Revision(b), _) => (
                b.label(),
                match &self.ci {
                    Some(c) if b.from != "--rules-from" => format!("{}: {}", c.ci.name(), b.from),
                    _ => b.from.clone(),
                },
            ),
            (Source::WorkTree, Policy::Store(ids)) if ids.is_empty() => (
                "working tree".into(),
                "not trusted: `crit trust` allows its settings".into(),
            ),
            (Source::WorkTree, Policy::Store(_)) => {
                ("working tree".into(), "trusted with `crit trust`".into())
            }
            (Source::WorkTree, Policy::Allow) => ("working tree".into(), "trusted".into()),
            (Source::WorkTree, Policy::Deny(_)) => (
                "working tree".into(),
                match &self.ci {
                    Some(c) => format!(
                        "{}: no base revision; exec-capable settings ignored",
                        c.ci.name()
                    ),
                    None => "exec-capable settings ignored".into(),
                },
            ),
        }
    }

    /// A project file by its path from the root, from wherever the rules
    /// come from; `None` when it does not exist there.
    pub fn read(&self, rel: &str) -> Result<Option<RulesFile>, TrustError> {
        if !within(rel) {
            return Ok(None);
        }
        match &self.source {
            Source::WorkTree => {
                let path = self.root.join(rel);
                match crit_core::files::read_to_string(&path) {
                    Ok(text) => Ok(Some(RulesFile {
                        text,
                        label: path.display().to_string(),
                    })),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(source) => Err(TrustError::Io { path, source }),
                }
            }
            Source::Revision(base) => {
                let text = base.revision.read(rel).map_err(|source| TrustError::Git {
                    at: base.name.clone(),
                    source,
                })?;
                self.note_if_changed(base, rel, text.as_deref());
                Ok(text.map(|text| RulesFile {
                    text,
                    label: format!("{}:{rel}", base.name),
                }))
            }
        }
    }

    /// The files directly in directory `rel` whose names end in one of
    /// `exts`, as paths from the root, sorted.
    pub fn list(&self, rel: &str, exts: &[&str]) -> Result<Vec<String>, TrustError> {
        let wanted = |name: &str| {
            Path::new(name)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
        };
        if !within(rel) {
            return Ok(Vec::new());
        }
        let names = match &self.source {
            Source::WorkTree => {
                let dir = self.root.join(rel);
                let entries = match std::fs::read_dir(&dir) {
                    Ok(e) => e,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
                    Err(source) => return Err(TrustError::Io { path: dir, source }),
                };
                let mut names: Vec<String> = entries
                    .filter_map(Result::ok)
                    .filter(|e| e.path().is_file())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .collect();
                names.sort();
                names
            }
            Source::Revision(base) => {
                base.revision.list(rel).map_err(|source| TrustError::Git {
                    at: base.name.clone(),
                    source,
                })?
            }
        };
        Ok(names
            .into_iter()
            .filter(|n| wanted(n))
            .map(|n| format!("{}/{n}", rel.trim_end_matches('/')))
            .collect())
    }

    /// May this exec-capable setting be honoured? A refusal is warned about
    /// once (per setting and process), naming the setting and the fix.
    pub fn allow(&self, setting: Gated) -> bool {
        self.allow_as(setting, "crit trust")
    }

    /// [`ProjectRules::allow`] for a setting `trust` (a command line) would
    /// trust: a file only a flag loads is trusted with that flag too.
    pub fn allow_as(&self, setting: Gated, trust: &str) -> bool {
        let id = setting.id();
        let allowed = match &self.policy {
            Policy::Allow => true,
            Policy::Deny(_) => false,
            Policy::Store(ids) => ids.contains(&id),
        };
        // One question per setting: a second loader asking gets no second warning.
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.iter().any(|a| a.setting.id() == id) {
            if !allowed {
                // A reason shared by every refusal is given in full once.
                let repeated =
                    matches!(self.policy, Policy::Deny(_)) && asked.iter().any(|a| !a.allowed);
                self.warn(match repeated {
                    true => format!(
                        "ignoring `{}` from {} (for the same reason)",
                        setting.key,
                        setting.at()
                    ),
                    false => self.refusal_as(&setting, trust),
                });
            }
            asked.push(Asked { setting, allowed });
        }
        allowed
    }

    /// Every setting asked about so far, in order, each once.
    pub fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Why a setting is ignored, in a few words: not trusted, or the reason
    /// nothing is.
    pub fn why_ignored(&self) -> String {
        match &self.policy {
            Policy::Deny(why) => why.clone(),
            _ => "not trusted: `crit trust` allows it".into(),
        }
    }

    /// The warning for an ignored setting.
    pub fn refusal(&self, s: &Gated) -> String {
        self.refusal_as(s, "crit trust")
    }

    fn refusal_as(&self, s: &Gated, trust: &str) -> String {
        let what = format!("ignoring `{}` from {}", s.key, s.at());
        match &self.policy {
            Policy::Deny(why) => format!("{what}: {why}"),
            _ => format!(
                "{what} (not trusted): run `{trust}` to allow this project's settings (`{trust} --show` lists them)"
            ),
        }
    }

    /// At a commit, a rules file the change edits is said to be not applied
    /// (once), so the change's author is not surprised.
    fn note_if_changed(&self, base: &Base, rel: &str, at_base: Option<&str>) {
        let here = crit_core::files::read_to_string(self.root.join(rel)).ok();
        if here.as_deref() == at_base {
            return;
        }
        let mut noted = self.noted.lock().unwrap_or_else(|p| p.into_inner());
        if noted.insert(rel.to_string()) {
            drop(noted);
            self.warn(format!(
                "{rel} differs from {} ({}): the rules at {} apply, not the change's",
                base.name, base.from, base.name
            ));
        }
    }
}

impl Drop for ProjectRules {
    /// A warning is never lost: one nobody released is logged now.
    fn drop(&mut self) {
        self.release_warnings();
    }
}

/// What the user's trust store honours for the project at `root`.
fn store_policy(root: &Path, env: &crit_os::Env) -> Policy {
    match TrustStore::standard(env) {
        None => {
            Policy::Deny("no trust store: set HOME or XDG_STATE_HOME, then run `crit trust`".into())
        }
        Some(store) => match store.get(&canonical(root)) {
            Ok(t) => Policy::Store(
                t.map(|t| t.settings.into_keys().collect())
                    .unwrap_or_default(),
            ),
            Err(e) => Policy::Deny(e.to_string()),
        },
    }
}

/// A path that stays inside the project: relative, no `..`.
fn within(rel: &str) -> bool {
    Path::new(rel).components().all(|c| {
        matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    })
}

fn canonical(root: &Path) -> PathBuf {
    root.canonicalize().unwrap_or_else(|_| root.to_path_buf())
}

/// A label's path from the project root: `./.crit/x.yaml` → `.crit/x.yaml`.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.to_string_lossy()
        .replace('\\', "/")
        .trim_start_matches("./")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cover_file_key_and_value_but_not_the_line() {
        let a = Gated::new(".crit/config.yaml", 3, "base_url", "http://a");
        let moved = Gated {
            line: 9,
            ..a.clone()
        };
        assert_eq!(a.id(), moved.id());
        assert_eq!(a.id().len(), 64);
        for other in [
            Gated::new(".crit/config.yaml", 3, "base_url", "http://b"),
            Gated::new(".crit/other.yaml", 3, "base_url", "http://a"),
            Gated::new(".crit/config.yaml", 3, "command", "http://a"),
            // No way to shift bytes between the parts.
            Gated::new(".crit/config.yaml\0base_url", 3, "", "http://a"),
        ] {
            assert_ne!(a.id(), other.id(), "{other:?}");
        }
    }

    #[test]
    fn each_refusal_is_recorded_once() {
        let rules = ProjectRules::untrusted(Path::new("/p"), "because");
        let s = Gated::new(".crit/config.yaml", 3, "base_url", "http://a");
        assert!(!rules.allow(s.clone()));
        assert!(!rules.allow(s.clone()));
        assert_eq!(
            rules.asked(),
            vec![Asked {
                setting: s.clone(),
                allowed: false
            }]
        );
        assert_eq!(
            rules.refusal(&s),
            "ignoring `base_url` from .crit/config.yaml:3: because"
        );
        assert!(ProjectRules::trusting(Path::new("/p")).allow(s));
    }
}
