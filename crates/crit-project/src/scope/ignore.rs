//! `ignore` globs: files of the change the user chose not to have reviewed
//! (lockfiles, generated or vendored code). They leave the change and are
//! listed in [`Change::ignored`], so a review's coverage names every one; the
//! globs come only from the user's trusted settings or `--ignore`, never from
//! the change under review.

use super::files::Selector;
use super::{Change, Ignored, ScopeError, shard};

/// Checks that every glob parses, naming the first that does not.
pub fn check_globs(globs: &[String]) -> Result<(), ScopeError> {
    for g in globs {
        Selector::new(std::slice::from_ref(g))?;
    }
    Ok(())
}

/// Moves the files `globs` match from `change` into `change.ignored`.
/// A glob that does not parse ignores nothing (settings check them first):
/// reviewing more is the safe side.
pub(super) fn leave_out(change: &mut Change, globs: &[String]) {
    let selectors: Vec<(&String, Selector)> = globs
        .iter()
        .filter_map(|g| Selector::new(std::slice::from_ref(g)).ok().map(|s| (g, s)))
        .collect();
    if selectors.is_empty() {
        return;
    }
    // What git hides that the user's own globs name is the user's choice
    // too: listed as ignored, not as a gap.
    let (chosen, still): (Vec<_>, Vec<_>) = std::mem::take(&mut change.hidden)
        .into_iter()
        .partition(|h| selectors.iter().any(|(_, s)| s.matches(&h.path)));
    change.hidden = still;
    for h in chosen {
        let glob = selectors
            .iter()
            .find(|(_, s)| s.matches(&h.path))
            .map(|(g, _)| (*g).clone())
            .unwrap_or_default();
        change.ignored.push(Ignored {
            path: h.path,
            hunks: 0,
            additions: 0,
            glob,
        });
    }
    if change.files.is_empty() {
        return;
    }
    let mut keep = Vec::with_capacity(change.files.len());
    let mut ignored = Vec::new();
    for f in &change.files {
        let path = change.path_from_root(&f.path);
        match selectors.iter().find(|(_, s)| s.matches(path)) {
            Some((glob, _)) => {
                keep.push(false);
                ignored.push(Ignored {
                    path: path.to_string(),
                    hunks: u32::try_from(f.hunks.len()).unwrap_or(u32::MAX),
                    additions: f.additions,
                    glob: (*glob).clone(),
                });
            }
            None => keep.push(true),
        }
    }
    if ignored.is_empty() {
        return;
    }
    shard::keep(change, &keep);
    change.ignored.extend(ignored);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_glob_is_named() {
        assert!(check_globs(&["*.lock".into(), "vendor/**".into()]).is_ok());
        let e = check_globs(&["ok".into(), "a[".into()]).unwrap_err();
        assert!(e.to_string().contains("a["), "{e}");
    }
}
