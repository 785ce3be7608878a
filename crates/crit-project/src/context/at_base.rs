//! Conventions read from where the project's rules come from. In CI (or
//! with `--rules-from`) that is the base revision: a pull request's own edit
//! to CLAUDE.md, AGENTS.md or a `.claude/rules` file never reaches its
//! reviewers, and each such edit is said once (the rules' own note, "differs
//! from the base: the rules at the base apply"). In the working tree, as
//! [`discover`] reads them: the user's own checkout is theirs.

use std::path::{Path, PathBuf};

use super::walk::{self, RULES_DIR, Read};
use super::{
    ContextError, ContextOptions, Conventions, OmitCause, Omitted, ProjectContext, UnderReview,
    located, memory, parse_rules, read,
};
use crate::trust::{ProjectRules, Source};

/// [`discover`], with every file read through `rules`.
pub fn discover_with(
    rules: &ProjectRules,
    cwd: &Path,
    under_review: UnderReview<'_>,
    opts: &ContextOptions,
) -> Result<ProjectContext, ContextError> {
    Ok(read_with(rules, cwd)?.select(under_review, opts))
}

/// [`read`], with every file read through `rules`: [`discover_with`] before
/// the files under review are known.
pub fn read_with(rules: &ProjectRules, cwd: &Path) -> Result<Conventions, ContextError> {
    let Source::Revision(base) = rules.source() else {
        return read(rules.root(), cwd);
    };
    let (root, cwd_rel, given_root) = located(rules.root(), cwd)?;
    let mut omitted = Vec::new();
    let read = |rel: &str| match rules.read(rel) {
        Ok(Some(file)) => Read::Text {
            real: PathBuf::from(rel),
            text: file.text,
        },
        Ok(None) => Read::Missing,
        Err(e) => Read::Skipped(Omitted {
            path: rel.to_string(),
            reason: e.to_string(),
            cause: OmitCause::Unreadable,
        }),
    };
    let memory = memory(walk::memory_paths(&cwd_rel), &read, &mut omitted);
    let at_base: Vec<String> = match base.revision.files_under(RULES_DIR) {
        Ok(paths) => paths.into_iter().filter(|p| p.ends_with(".md")).collect(),
        Err(e) => {
            omitted.push(Omitted {
                path: RULES_DIR.to_string(),
                reason: format!("cannot list it at {}: {e}", base.name),
                cause: OmitCause::Unreadable,
            });
            Vec::new()
        }
    };
    // A rule file only the change has is not read; asking the rules for it
    // says that the change's conventions do not apply.
    let mut ignored = Vec::new();
    for path in walk::rule_paths(&root, &mut ignored) {
        if !at_base.contains(&path) {
            let _ = rules.read(&path);
        }
    }
    let rules = parse_rules(at_base, &read, &mut omitted);
    Ok(Conventions::new(given_root, root, memory, rules, omitted))
}
