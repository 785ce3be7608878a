//! What makes a git subprocess inert in a repository crit does not trust.
//! Shared by the Bash tool's git and crit's own git ([`super::Git`]), so both
//! are hardened the same way.
//!
//! - [`HARDENING`]: options before the subcommand. `-c` beats every config
//!   file, so these switch off what a repository's config could otherwise run
//!   or read: pagers, hooks, fsmonitor, external diff, signature programs,
//!   credential helpers and ssh, mailmap files, the diff order file, submodule
//!   recursion, remerge diffs (they write objects), automatic gc, and implicit
//!   bare repositories.
//! - [`GIT_ENV`]: environment for every run: no prompts, no system config, no
//!   optional locks, literal pathspecs (`:/` and other pathspec magic could
//!   reach outside the project), no replace objects, no lazy fetch.
//! - [`RepoConfig`]: what `-c` cannot switch off by a fixed name, found with
//!   one [`CONFIG_QUERY`] run: the repository's clean/smudge filter drivers (by
//!   name), repository-local attribute and exclude files, and
//!   `blame.ignoreRevsFile`, which git keeps reading whatever `-c` says (an
//!   empty value does not reset it), so the caller must refuse blame instead.
//!
//! Textconv and external diff drivers are per-path attributes: the callers pass
//! `--no-textconv`/`--no-ext-diff` to every command that would run them.

/// Put before the subcommand of every git run.
#[rustfmt::skip]
pub const HARDENING: &[&str] = &[
    "--no-pager",
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.askPass=",
    "-c", "core.sshCommand=false",
    "-c", "credential.helper=",
    "-c", "diff.external=",
    "-c", "diff.orderFile=/dev/null",
    "-c", "diff.submodule=short",
    "-c", "status.submoduleSummary=false",
    "-c", "submodule.recurse=false",
    "-c", "log.diffMerges=separate",
    "-c", "protocol.allow=never",
    "-c", "log.showSignature=false",
    "-c", "gpg.program=false",
    "-c", "gpg.ssh.program=false",
    "-c", "gpg.x509.program=false",
    "-c", "mailmap.file=",
    "-c", "mailmap.blob=",
    "-c", "log.mailmap=false",
    "-c", "grep.fallbackToNoIndex=false",
    "-c", "safe.bareRepository=explicit",
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
];

/// Environment for every git run (on top of PATH and, where the caller wants
/// the user's own config, HOME).
pub const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_LITERAL_PATHSPECS", "1"),
    ("GIT_NO_REPLACE_OBJECTS", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_NO_LAZY_FETCH", "1"),
];

/// `git <HARDENING> config …`: the settings [`RepoConfig`] needs, with scopes
/// and values, NUL-separated.
pub const CONFIG_QUERY: &[&str] = &[
    "config",
    "--null",
    "--show-scope",
    "--get-regexp",
    "^(filter\\..*|blame\\.ignorerevsfile|core\\.attributesfile|core\\.excludesfile|extensions\\.objectformat)$",
];

/// One setting from [`CONFIG_QUERY`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// `local`, `worktree`, `global`, `command`, …
    pub scope: String,
    /// Lower-case section and name; a subsection keeps its case.
    pub key: String,
    pub value: Option<String>,
}

/// The settings of [`CONFIG_QUERY`] that need handling.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoConfig {
    pub entries: Vec<ConfigEntry>,
}

impl RepoConfig {
    /// Parses `scope\0key\nvalue\0` records (`scope\0key\0` without a value).
    pub fn parse(listing: &str) -> Self {
        let mut entries = Vec::new();
        let mut parts = listing.split('\0');
        while let (Some(scope), Some(record)) = (parts.next(), parts.next()) {
            let (key, value) = match record.split_once('\n') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (record, None),
            };
            if key.is_empty() {
                continue;
            }
            entries.push(ConfigEntry {
                scope: scope.to_string(),
                key: key.to_string(),
                value,
            });
        }
        Self { entries }
    }

    /// `-c` overrides: every clean/smudge filter driver not from the user's
    /// global config (git-lfs stays) is emptied, and attribute or exclude files
    /// set by the repository are replaced by `/dev/null`.
    pub fn overrides(&self) -> Vec<String> {
        let mut drivers: Vec<&str> = Vec::new();
        let mut files: Vec<&str> = Vec::new();
        for e in self.entries.iter().filter(|e| e.scope != "global") {
            if let Some((driver, _)) = e
                .key
                .strip_prefix("filter.")
                .and_then(|k| k.rsplit_once('.'))
            {
                if !driver.is_empty() && !drivers.contains(&driver) {
                    drivers.push(driver);
                }
            } else if ["core.attributesfile", "core.excludesfile"].contains(&e.key.as_str())
                && !files.contains(&e.key.as_str())
            {
                files.push(&e.key);
            }
        }
        let filters = drivers.iter().flat_map(|d| {
            ["clean=", "smudge=", "process=", "required=false"]
                .map(|k| ["-c".to_string(), format!("filter.{d}.{k}")])
        });
        let files = files
            .iter()
            .map(|k| ["-c".to_string(), format!("{k}=/dev/null")]);
        filters.chain(files).flatten().collect()
    }

    /// The repository's object format (`sha1` unless it says otherwise).
    pub fn object_format(&self) -> &str {
        self.entries
            .iter()
            .rev()
            .find(|e| e.key == "extensions.objectformat")
            .and_then(|e| e.value.as_deref())
            .unwrap_or("sha1")
    }

    /// The `blame.ignoreRevsFile` values, from any scope.
    pub fn blame_ignore_files(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(|e| e.key == "blame.ignorerevsfile")
            .filter_map(|e| e.value.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(records: &[(&str, &str)]) -> String {
        records
            .iter()
            .map(|(scope, rec)| format!("{scope}\0{rec}\0"))
            .collect()
    }

    #[test]
    fn filters_are_emptied_except_global_ones() {
        let c = RepoConfig::parse(&listing(&[
            ("global", "filter.lfs.clean\ngit-lfs clean -- %f"),
            ("local", "filter.evil.clean\nsh -c x"),
            ("local", "filter.a.b.smudge\ncat"),
            ("worktree", "filter.evil.smudge\ncat"),
        ]));
        assert_eq!(
            c.overrides(),
            [
                "-c",
                "filter.evil.clean=",
                "-c",
                "filter.evil.smudge=",
                "-c",
                "filter.evil.process=",
                "-c",
                "filter.evil.required=false",
                "-c",
                "filter.a.b.clean=",
                "-c",
                "filter.a.b.smudge=",
                "-c",
                "filter.a.b.process=",
                "-c",
                "filter.a.b.required=false",
            ]
        );
    }

    #[test]
    fn repository_files_and_blame_lists_are_found() {
        let c = RepoConfig::parse(&listing(&[
            ("global", "core.excludesfile\n~/.gitignore"),
            ("local", "core.attributesfile\n/etc/passwd"),
            ("local", "blame.ignorerevsfile\n/root/.git-credentials"),
            ("local", "filter.flag"),
        ]));
        assert_eq!(c.overrides(), ["-c", "core.attributesfile=/dev/null"]);
        assert_eq!(
            c.blame_ignore_files().collect::<Vec<_>>(),
            ["/root/.git-credentials"]
        );
        assert_eq!(RepoConfig::parse("").entries, []);
    }
}
