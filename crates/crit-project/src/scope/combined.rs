//! [`Scope::Union`]: several changes computed one by one, then joined into
//! one change (as `--commit A B` joins its commits): a path in several parts
//! is listed once with every part's hunks, and nothing of any part is lost.

use std::path::Path;

use super::compute::{compute_naming, merge_into};
use super::{Change, Scope, ScopeError, ScopeOptions};

/// The parts of `parts` joined; their bases are kept only when there is one
/// part. `named` are the own files a `--files` glob keeps.
pub(super) fn compute(
    root: &Path,
    parts: &[Scope],
    opts: &ScopeOptions,
    named: &[String],
) -> Result<Change, ScopeError> {
    // Each part whole: the shard and the patch cap apply to the union.
    let whole = ScopeOptions {
        shard: None,
        max_patch_bytes: usize::MAX,
        ..opts.clone()
    };
    let mut all: Option<Change> = None;
    let mut descriptions = Vec::new();
    for part in parts {
        let c = compute_naming(root, part, &whole, named)?;
        descriptions.push(c.description.clone());
        all = Some(match all {
            None => c,
            Some(mut acc) => {
                acc.base = None;
                acc.notes.extend(c.notes.iter().cloned());
                acc.commits.extend(c.commits.iter().cloned());
                acc.screened.extend(c.screened.iter().cloned());
                acc.hidden.extend(c.hidden.iter().cloned());
                merge_into(&mut acc, c);
                acc
            }
        });
    }
    let mut change = all.ok_or_else(|| ScopeError::BadRevision {
        flag: "--commit",
        rev: String::new(),
        why: "a union of changes needs at least one part".into(),
    })?;
    change.description = descriptions.join("; and ");
    Ok(change)
}
