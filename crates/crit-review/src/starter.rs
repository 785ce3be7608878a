//! `crit init`: a starter `.crit/` — project settings, a `crit run`
//! orchestrator with three example reviewers — that a team edits and commits.
//! Existing files are never overwritten.

use std::path::{Path, PathBuf};

/// Every starter file: its path under the project root, and its text.
pub const FILES: [(&str, &str); 6] = [
    (".crit/config.yaml", include_str!("../starter/config.yaml")),
    (".crit/run.yaml", include_str!("../starter/run.yaml")),
    (
        ".crit/prompts/orchestrator.md",
        include_str!("../prompts/orchestrator.md"),
    ),
    (
        ".crit/agents/backend-reviewer.md",
        include_str!("../starter/agents/backend-reviewer.md"),
    ),
    (
        ".crit/agents/frontend-reviewer.md",
        include_str!("../starter/agents/frontend-reviewer.md"),
    ),
    (
        ".crit/agents/architecture-reviewer.md",
        include_str!("../starter/agents/architecture-reviewer.md"),
    ),
];

/// What happened to one starter file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Created(PathBuf),
    /// It was there already and was left as it is.
    Kept(PathBuf),
}

/// Writes the starter files under `root`, skipping any that exist.
pub fn write(root: &Path) -> std::io::Result<Vec<Written>> {
    let mut out = Vec::new();
    for (rel, text) in FILES {
        let path = root.join(rel);
        if path.exists() {
            out.push(Written::Kept(path));
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // create_new: a file that appears meanwhile is not overwritten either.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                std::io::Write::write_all(&mut f, text.as_bytes())?;
                out.push(Written::Created(path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                out.push(Written::Kept(path))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}
