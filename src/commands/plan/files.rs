//! Which of a plan's files `crit plan` changed and which it created, said on
//! stderr after the verdict: a first run writes more than the plan.

use std::path::{Path, PathBuf};

use crit_checks::session::SessionPaths;

/// A regular file's bytes, read within crit's input cap. Anything else (a
/// device, a FIFO, a file past the cap) counts as absent: the run refuses it
/// and says so itself.
fn contents(path: &Path) -> Option<Vec<u8>> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    crit_core::files::read_capped(path, Default::default()).ok()
}

/// The plan's files and what they held before the run.
pub struct Before(Vec<(PathBuf, Option<Vec<u8>>)>);

impl Before {
    /// `None` when the target names no session (the run reports that itself).
    pub fn take(target: &str, home: Option<&Path>) -> Option<Before> {
        let p = SessionPaths::resolve(target, home).ok()?;
        let files = [p.plan, p.context, p.state, p.marker, p.lock];
        Some(Before(
            files
                .into_iter()
                .map(|f| {
                    let held = contents(&f);
                    (f, held)
                })
                .collect(),
        ))
    }

    /// One line for what changed since [`Before::take`], or `None`.
    pub fn changes(&self) -> Option<String> {
        let name = |p: &Path| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        let (mut changed, mut created, mut removed) = (Vec::new(), Vec::new(), Vec::new());
        for (path, held) in &self.0 {
            match (held, contents(path)) {
                (None, Some(_)) => created.push(name(path)),
                (Some(_), None) => removed.push(name(path)),
                (Some(a), Some(b)) if *a != b => changed.push(name(path)),
                _ => {}
            }
        }
        let parts: Vec<String> = [
            ("changed", changed),
            ("created", created),
            ("removed", removed),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(what, v)| format!("{what} {}", v.join(", ")))
        .collect();
        let dir = self.0.first()?.0.parent()?;
        (!parts.is_empty()).then(|| format!("{} (in {})", parts.join("; "), dir.display()))
    }
}
