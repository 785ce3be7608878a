//! A file as a reviewer's tools may show it: its secrets found on its whole
//! text and masked by byte range (each line keeps its place) before any tool
//! cuts a slice of it, so no slice of a secret survives. Files git ignores
//! that exist to hold secrets are not shown as they are: env files (`.env`,
//! `.env.local`, …) keep their keys and comments with every value masked;
//! credential files (private keys, `.netrc`, `.git-credentials`, …) are
//! refused with a reason the model can read.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crit_core::redact::{Options, marker};
use ignore::gitignore::GitignoreBuilder;

/// The largest file whose secrets are looked for; a tool shows no larger one.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Bytes looked at for a NUL to tell a binary file, as ripgrep does.
const BINARY_PROBE: usize = 8 * 1024;

/// What a tool may show of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileView {
    /// The whole text, secrets masked, lines in place.
    Text(String),
    /// A NUL byte near the start: not text.
    Binary,
    /// Larger than [`MAX_FILE_BYTES`]; the reason is for the model.
    TooLarge(String),
    /// Not shown at all; the reason is for the model.
    Refused(String),
}

/// One secret masked in a file: its 1-based line and kind.
pub(crate) type Masked = (u32, &'static str);

/// Reads `path` (shown to the model as `shown`) and masks it; the masked
/// secrets come back with it.
pub(crate) fn view(
    redactor: &crit_core::redact::Redactor,
    root: &Path,
    path: &Path,
    shown: &str,
) -> std::io::Result<(FileView, Vec<Masked>)> {
    let meta = std::fs::metadata(path)?;
    if meta.len() > MAX_FILE_BYTES {
        return Ok((
            FileView::TooLarge(format!(
                "`{shown}` is {} MiB, larger than the {} MiB crit reads whole to mask secrets \
                 before showing any part of a file; crit does not show it",
                meta.len() / (1024 * 1024),
                MAX_FILE_BYTES / (1024 * 1024)
            )),
            Vec::new(),
        ));
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let kind = SecretFile::of(name);
    if kind == Some(SecretFile::Credentials) && git_ignored(root, path) {
        return Ok((
            FileView::Refused(format!(
                "refused: `{shown}` is a credentials file (a private key, a password or token \
                 store) that git ignores; crit does not show such files to reviewers. Review the \
                 code that uses it instead"
            )),
            Vec::new(),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)?;
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return Ok((FileView::Binary, Vec::new()));
    }
    let text = String::from_utf8_lossy(&bytes);
    if kind == Some(SecretFile::Env) && git_ignored(root, path) {
        let (masked, found) = mask_env(&text);
        learn_env_values(redactor, &text);
        return Ok((FileView::Text(masked), found));
    }
    let r = redactor.redact_with(
        &text,
        Options {
            keep_lines: true,
            learn: true,
            ..Options::default()
        },
    );
    let found = r.found.iter().map(|h| (h.line, h.kind)).collect();
    Ok((FileView::Text(r.text.into_owned()), found))
}

/// Files that exist to hold secrets, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SecretFile {
    /// `KEY=value` lines: `.env`, `.env.production`, `prod.env`, `.envrc`.
    Env,
    /// Private keys and credential stores.
    Credentials,
}

impl SecretFile {
    fn of(name: &str) -> Option<SecretFile> {
        let lower = name.to_ascii_lowercase();
        // Templates are written to be committed and shared.
        const TEMPLATES: &[&str] = &[
            ".example",
            ".sample",
            ".template",
            ".dist",
            ".defaults",
            ".schema",
            ".tmpl",
            ".tpl",
        ];
        if TEMPLATES.iter().any(|t| lower.ends_with(t)) {
            return None;
        }
        if lower == ".env"
            || lower.starts_with(".env.")
            || lower.ends_with(".env")
            || lower == ".envrc"
            || lower == ".flaskenv"
        {
            return Some(SecretFile::Env);
        }
        const NAMES: &[&str] = &[
            ".netrc",
            "_netrc",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".pgpass",
            "credentials",
            ".htpasswd",
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
        ];
        const EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "jks", "keystore", "ppk"];
        let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
        (NAMES.contains(&lower.as_str()) || EXTENSIONS.contains(&ext))
            .then_some(SecretFile::Credentials)
    }
}

/// Whether git would ignore `path` (canonical, under `root`): the
/// repository's `info/exclude`, then each `.gitignore` from the root down,
/// the deepest deciding.
fn git_ignored(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut dirs: Vec<PathBuf> = vec![root.to_path_buf()];
    if let Some(parent) = rel.parent() {
        let mut dir = root.to_path_buf();
        for c in parent.components() {
            dir.push(c);
            dirs.push(dir.clone());
        }
    }
    let mut files: Vec<(PathBuf, PathBuf)> =
        vec![(root.to_path_buf(), root.join(".git/info/exclude"))];
    files.extend(dirs.into_iter().map(|d| {
        let f = d.join(".gitignore");
        (d, f)
    }));
    let mut ignored = false;
    for (dir, file) in files {
        if !file.is_file() {
            continue;
        }
        let mut b = GitignoreBuilder::new(&dir);
        if b.add(&file).is_some() {
            continue;
        }
        let Ok(gi) = b.build() else { continue };
        let m = gi.matched_path_or_any_parents(path, false);
        if m.is_ignore() {
            ignored = true;
        } else if m.is_whitelist() {
            ignored = false;
        }
    }
    ignored
}

/// An env file with every value masked: keys, comments and blank lines
/// stay, so a reviewer still sees what is configured.
fn mask_env(text: &str) -> (String, Vec<Masked>) {
    let mark = marker("env-value");
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let body = line.trim_end_matches(['\n', '\r']);
        let end = &line[body.len()..];
        let trimmed = body.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            out.push_str(line);
            continue;
        }
        match env_value_at(body) {
            Some(at) if body[at..].trim().is_empty() => out.push_str(line),
            Some(at) => {
                out.push_str(&body[..at]);
                out.push_str(&mark);
                out.push_str(end);
                found.push((n, "env-value"));
            }
            None => {
                out.push_str(&mark);
                out.push_str(end);
                found.push((n, "env-value"));
            }
        }
    }
    (out, found)
}

/// Where the value of `KEY=value`, `export KEY=value` or `KEY: value` starts.
fn env_value_at(line: &str) -> Option<usize> {
    let lead = line.len() - line.trim_start().len();
    let rest = &line[lead..];
    let rest_at = lead + if rest.starts_with("export ") { 7 } else { 0 };
    let key_len = line[rest_at..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    if key_len == 0 {
        return None;
    }
    let after = rest_at + key_len;
    let spaces = line[after..].len() - line[after..].trim_start().len();
    let sep = after + spaces;
    matches!(line.as_bytes().get(sep), Some(b'=' | b':')).then(|| {
        let value = sep + 1;
        value + (line[value..].len() - line[value..].trim_start().len())
    })
}

/// Every value of an env file joins what the redactor knows, so a model
/// that learns one some other way cannot echo it.
fn learn_env_values(redactor: &crit_core::redact::Redactor, text: &str) {
    for line in text.lines() {
        if let Some(at) = env_value_at(line) {
            let value = line[at..].trim().trim_matches(['"', '\'']);
            redactor.learn(value, "env-value");
        }
    }
}

/// A file's size and time, to tell when a cached look at it is stale.
pub(crate) fn stamp(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_keep_keys_and_lose_values() {
        let text = "# db\nDB_HOST=localhost\nexport TOKEN = \"ghp_x\"\nEMPTY=\n\nnot an assignment\nKEY: v\n";
        let (masked, found) = mask_env(text);
        assert_eq!(
            masked,
            "# db\nDB_HOST=[REDACTED:env-value]\nexport TOKEN = [REDACTED:env-value]\nEMPTY=\n\n[REDACTED:env-value]\nKEY: [REDACTED:env-value]\n"
        );
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [2, 3, 6, 7]);
    }

    #[test]
    fn secret_files_by_name() {
        for (name, want) in [
            (".env", Some(SecretFile::Env)),
            (".env.local", Some(SecretFile::Env)),
            ("prod.env", Some(SecretFile::Env)),
            (".envrc", Some(SecretFile::Env)),
            (".env.example", None),
            (".env.sample", None),
            ("deploy.pem", Some(SecretFile::Credentials)),
            ("id_ed25519", Some(SecretFile::Credentials)),
            ("id_ed25519.pub", None),
            (".git-credentials", Some(SecretFile::Credentials)),
            ("environment.rs", None),
            ("keyboard.rs", None),
        ] {
            assert_eq!(SecretFile::of(name), want, "{name}");
        }
    }
}
