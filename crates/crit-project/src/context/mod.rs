//! Project conventions a reviewer is given: CLAUDE.md and AGENTS.md from the root
//! down to the working directory, and `.claude/rules` that apply to the files
//! under review.
//!
//! The layout is Claude Code's: in each directory from the root to the working
//! directory, `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and `AGENTS.md`
//! (in that order); then `.claude/rules/**/*.md` at the root, sorted by path. A
//! rule with `paths:` (or Cursor's `globs:`) frontmatter applies only when a file
//! under review matches one of its globs. The root is the repository root
//! ([`project_root_in`]); nothing above it is read, and symlinks that lead out of it
//! are skipped. The result renders as one block for the cached shared prefix of the
//! system prompt: the same inputs give the same bytes. How the block is fitted
//! into its token budget is described in `budget.rs`.

mod at_base;
mod budget;
pub(crate) mod frontmatter;
mod render;
mod rules;
pub mod walk;

use std::path::{Path, PathBuf};

use budget::Entry;
use rules::Rule;
use walk::Read;

pub use crate::paths::project_root_in;
pub use at_base::{discover_with, read_with};

/// The default token budget of the context block.
pub const DEFAULT_TOKEN_BUDGET: usize = 16_000;

/// How much context to gather.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextOptions {
    /// Tokens the rendered block may use, estimated as `ceil(bytes / 4)`.
    pub token_budget: usize,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            token_budget: DEFAULT_TOKEN_BUDGET,
        }
    }
}

/// What the review looks at, to decide which path-scoped rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnderReview<'a> {
    /// A survey of the whole project: every rule applies.
    Everything,
    /// These root-relative paths (`/`-separated; `./` and `\` are tolerated).
    Files(&'a [String]),
}

/// The conventions found, fitted into the budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectContext {
    /// In prompt order: memory files root first, then rules by path.
    pub sections: Vec<Section>,
    /// What was found but left out (or cut), and why; sorted by path.
    pub omitted: Vec<Omitted>,
    /// Estimated tokens of [`ProjectContext::render`].
    pub tokens: usize,
}

/// One file's text in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Root-relative, `/`-separated.
    pub path: String,
    pub kind: SectionKind,
    /// The file's text, frontmatter stripped, surrounding blank lines trimmed.
    pub text: String,
    /// The text was cut to fit the budget (it ends with crit's marker).
    pub truncated: bool,
    /// A path-scoped rule's globs, as shown in its heading; empty otherwise.
    pub applies_to: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, AGENTS.md.
    Memory,
    /// A file under `.claude/rules`.
    Rule,
}

/// A file found but not given (whole) to reviewers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omitted {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// For people: `paths: src/api/** matches no file under review`.
    pub reason: String,
    pub cause: OmitCause,
}

/// Why a file was left out, for callers that group or filter the reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OmitCause {
    /// A path-scoped rule that matches no file under review.
    NoMatch,
    /// Dropped whole to fit the token budget.
    Budget,
    /// Shown, but cut to fit the token budget.
    Truncated,
    /// Not readable, not UTF-8, or too large.
    Unreadable,
    /// A rule whose frontmatter is malformed.
    Invalid,
    /// A symlink that resolves outside the project root.
    OutsideRoot,
    /// The same file (or the same text) as one already given.
    Duplicate,
}

/// Why discovery could not start. Problems with individual files are never
/// errors: they are [`Omitted`] entries.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("{}: cannot open the directory: {source}", path.display())]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the working directory {} is not inside the project root {}; pass a --cwd inside the project",
        cwd.display(),
        root.display()
    )]
    CwdOutsideRoot { cwd: PathBuf, root: PathBuf },
}

impl ProjectContext {
    /// Nothing to give reviewers: [`ProjectContext::render`] is empty.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty() && !self.omitted.iter().any(|o| o.cause == OmitCause::Budget)
    }

    /// The block for the system prompt; empty when there is nothing to say.
    pub fn render(&self) -> String {
        let left_out: Vec<&str> = self
            .omitted
            .iter()
            .filter(|o| o.cause == OmitCause::Budget)
            .map(|o| o.path.as_str())
            .collect();
        render::render(&self.sections, &left_out)
    }

    /// The paths given to reviewers, in prompt order.
    pub fn files(&self) -> Vec<&str> {
        self.sections.iter().map(|s| s.path.as_str()).collect()
    }
}

/// Gather the conventions under `root` that apply from `cwd` to `under_review`.
///
/// A malformed rule frontmatter is an [`Omitted`] entry naming `file:line:column`,
/// not an error: these files belong to the project (and to Claude Code, which
/// reads them its own way), a review should not fail over one of them, and the
/// CLI reports every omission so the user can fix it.
pub fn discover(
    root: &Path,
    cwd: &Path,
    under_review: UnderReview<'_>,
    opts: &ContextOptions,
) -> Result<ProjectContext, ContextError> {
    Ok(read(root, cwd)?.select(under_review, opts))
}

/// The conventions under `root` that may apply from `cwd`, read and parsed:
/// [`discover`] before the files under review are known.
pub fn read(root: &Path, cwd: &Path) -> Result<Conventions, ContextError> {
    let (root, cwd_rel, given_root) = located(root, cwd)?;
    let mut omitted = Vec::new();
    let read = |rel: &str| walk::read_confined(&root, rel);
    let memory = memory(walk::memory_paths(&cwd_rel), &read, &mut omitted);
    let rule_paths = walk::rule_paths(&root, &mut omitted);
    let rules = parse_rules(rule_paths, &read, &mut omitted);
    Ok(Conventions::new(given_root, root, memory, rules, omitted))
}

/// The project's conventions read and parsed ([`read`], [`read_with`]):
/// everything the files under review do not decide, so it can be done
/// while the change is read. [`Conventions::select`] finishes.
#[derive(Debug, Clone)]
pub struct Conventions {
    /// The root as given and resolved: a file under review may name either.
    given_root: PathBuf,
    root: PathBuf,
    memory: Vec<Entry>,
    rules: Vec<(String, Rule)>,
    matcher: rules::Matcher,
    omitted: Vec<Omitted>,
}

impl Conventions {
    fn new(
        given_root: PathBuf,
        root: PathBuf,
        memory: Vec<Entry>,
        rules: Vec<(String, Rule)>,
        omitted: Vec<Omitted>,
    ) -> Conventions {
        let matcher = rules::Matcher::new(&rules.iter().map(|(_, r)| r).collect::<Vec<_>>());
        Conventions {
            given_root,
            root,
            memory,
            rules,
            matcher,
            omitted,
        }
    }

    /// Those that apply to `under_review`, fitted into the budget.
    pub fn select(self, under_review: UnderReview<'_>, opts: &ContextOptions) -> ProjectContext {
        let files = match under_review {
            UnderReview::Everything => None,
            UnderReview::Files(files) => Some(relative_files(&self.given_root, &self.root, files)),
        };
        let under_review = match &files {
            None => UnderReview::Everything,
            Some(files) => UnderReview::Files(files),
        };
        let applying = self.matcher.applying(under_review);
        let mut omitted = self.omitted;
        let mut entries = self.memory;
        entries.extend(rule_entries(self.rules, applying, &mut omitted));
        fitted(entries, omitted, opts)
    }
}

/// The project root resolved, the working directory relative to it, and the
/// root as given.
fn located(root: &Path, cwd: &Path) -> Result<(PathBuf, PathBuf, PathBuf), ContextError> {
    let canonical = |path: &Path| {
        std::fs::canonicalize(path).map_err(|source| ContextError::Dir {
            path: path.to_path_buf(),
            source,
        })
    };
    let resolved = canonical(root)?;
    let cwd = canonical(cwd)?;
    let cwd_rel = cwd
        .strip_prefix(&resolved)
        .map_err(|_| ContextError::CwdOutsideRoot {
            cwd: cwd.clone(),
            root: resolved.clone(),
        })?
        .to_path_buf();
    Ok((resolved, cwd_rel, root.to_path_buf()))
}

/// The entries found, fitted into the budget, with what was left out.
fn fitted(entries: Vec<Entry>, mut omitted: Vec<Omitted>, opts: &ContextOptions) -> ProjectContext {
    let sections = budget::fit(entries, opts.token_budget, &mut omitted);
    omitted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut context = ProjectContext {
        sections,
        omitted,
        tokens: 0,
    };
    context.tokens = estimate_tokens(context.render().len());
    context
}

/// The files under review as rule globs see them: root-relative and
/// `/`-separated. An absolute path inside the root (as given, or resolved) is
/// made relative rather than silently matching nothing.
fn relative_files(given_root: &Path, root: &Path, files: &[String]) -> Vec<String> {
    files
        .iter()
        .map(|f| {
            let path = Path::new(f);
            let relative = path
                .strip_prefix(given_root)
                .or_else(|_| path.strip_prefix(root))
                .ok()
                .filter(|_| path.is_absolute());
            match relative {
                Some(rel) => rules::normalize_path(&rel.to_string_lossy()),
                None => rules::normalize_path(f),
            }
        })
        .collect()
}

fn memory(
    paths: Vec<String>,
    read: &dyn Fn(&str) -> Read,
    omitted: &mut Vec<Omitted>,
) -> Vec<Entry> {
    let mut seen: Vec<(PathBuf, String, String)> = Vec::new();
    let mut entries = Vec::new();
    for path in paths {
        let (real, text) = match read(&path) {
            Read::Missing => continue,
            Read::Skipped(o) => {
                omitted.push(o);
                continue;
            }
            Read::Text { real, text } => (real, tidy(&text)),
        };
        if text.is_empty() {
            continue;
        }
        // `AGENTS.md -> CLAUDE.md` (or a copy of it) is common; say it once.
        if let Some((_, first, _)) = seen.iter().find(|(r, _, t)| *r == real || *t == text) {
            omitted.push(Omitted {
                reason: format!("the same text as {first}"),
                path,
                cause: OmitCause::Duplicate,
            });
            continue;
        }
        seen.push((real, path.clone(), text.clone()));
        entries.push(entry(path, SectionKind::Memory, text, Vec::new(), None));
    }
    entries
}

/// The rule files at `paths`, parsed; one that cannot be read or parsed is
/// an [`Omitted`] entry.
fn parse_rules(
    paths: Vec<String>,
    read: &dyn Fn(&str) -> Read,
    omitted: &mut Vec<Omitted>,
) -> Vec<(String, Rule)> {
    let mut parsed = Vec::new();
    for path in paths {
        let text = match read(&path) {
            Read::Missing => continue,
            Read::Skipped(o) => {
                omitted.push(o);
                continue;
            }
            Read::Text { text, .. } => text,
        };
        match Rule::parse(&path, &text) {
            Ok(rule) => parsed.push((path, rule)),
            Err(e) => omitted.push(Omitted {
                path,
                reason: e.to_string(),
                cause: OmitCause::Invalid,
            }),
        }
    }
    parsed
}

/// The entries of the rules that apply (`applying`, rule by rule).
fn rule_entries(
    parsed: Vec<(String, Rule)>,
    applying: Vec<bool>,
    omitted: &mut Vec<Omitted>,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    for ((path, rule), applies) in parsed.into_iter().zip(applying) {
        if !applies {
            omitted.push(Omitted {
                reason: format!(
                    "paths: {} matches no file under review",
                    rule.globs.join(", ")
                ),
                path,
                cause: OmitCause::NoMatch,
            });
            continue;
        }
        let text = tidy(&rule.text);
        if text.is_empty() {
            continue;
        }
        let scoped = (!rule.globs.is_empty()).then(|| rule.specificity());
        entries.push(entry(path, SectionKind::Rule, text, rule.globs, scoped));
    }
    entries
}

fn entry(
    path: String,
    kind: SectionKind,
    text: String,
    applies_to: Vec<String>,
    scoped: Option<usize>,
) -> Entry {
    Entry {
        section: Section {
            path,
            kind,
            text: text.clone(),
            truncated: false,
            applies_to,
        },
        original: text,
        scoped,
        kept: None,
    }
}

/// Without a byte-order mark, leading blank lines and trailing whitespace, so
/// the block's layout does not depend on how a file ends.
fn tidy(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = text
        .char_indices()
        .find(|&(_, c)| !c.is_whitespace())
        .map_or(text.len(), |(i, _)| i);
    let first_line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    text[first_line..].trim_end().to_string()
}

/// Estimated tokens for `bytes` of text: `ceil(bytes / 4)`.
pub fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// `12345` as `12,345`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(5), 2);
        assert_eq!(tidy("\u{feff}\n\n  indented\nx  \n\n"), "  indented\nx");
    }
}
