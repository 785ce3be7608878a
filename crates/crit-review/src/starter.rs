//! `crit init`: starter files a team edits and commits. crit's layout is a
//! `.crit/` (project settings, a `crit run` orchestrator with three example
//! reviewers); `--reldo` writes Reldo's (`.claude/reldo.json`, its prompts
//! under `.claude/reldo/`, sessions under `.reldo/sessions`). Nothing is
//! overwritten unless asked: a starter that finds any of its files refuses
//! as a whole and writes nothing.

use std::path::{Path, PathBuf};

use crit_core::contract::Contract;

use crate::engine::prompts::{OutputSpec, contract_instructions};

/// Which project layout to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `.crit/`.
    Crit,
    /// Reldo's `.claude/reldo.json` and `.claude/reldo/`.
    Reldo,
}

const ORCHESTRATOR: &str = include_str!("../prompts/orchestrator.md");

/// Every starter file of `layout`: its path under the project root, and its text.
pub fn files(layout: Layout) -> Vec<(&'static str, String)> {
    let s = |t: &str| t.to_string();
    match layout {
        Layout::Crit => vec![
            (
                ".crit/config.yaml",
                s(include_str!("../starter/config.yaml")),
            ),
            (".crit/run.yaml", s(include_str!("../starter/run.yaml"))),
            // The orchestrator's prompt says how to answer: crit sends a
            // prompt of the project's as written.
            (".crit/prompts/orchestrator.md", crit_orchestrator()),
            (
                ".crit/agents/backend-reviewer.md",
                s(include_str!("../starter/agents/backend-reviewer.md")),
            ),
            (
                ".crit/agents/frontend-reviewer.md",
                s(include_str!("../starter/agents/frontend-reviewer.md")),
            ),
            (
                ".crit/agents/architecture-reviewer.md",
                s(include_str!("../starter/agents/architecture-reviewer.md")),
            ),
        ],
        Layout::Reldo => vec![
            (
                ".claude/reldo.json",
                s(include_str!("../starter/reldo/reldo.json")),
            ),
            (
                ".claude/reldo/orchestrator.md",
                s(include_str!("../starter/reldo/orchestrator.md")),
            ),
            (
                ".claude/reldo/agents/backend-reviewer.md",
                s(include_str!("../starter/reldo/agents/backend-reviewer.md")),
            ),
            (
                ".claude/reldo/agents/frontend-reviewer.md",
                s(include_str!("../starter/reldo/agents/frontend-reviewer.md")),
            ),
            (
                ".claude/reldo/agents/architecture-reviewer.md",
                s(include_str!(
                    "../starter/reldo/agents/architecture-reviewer.md"
                )),
            ),
            (
                ".reldo/.gitignore",
                s(include_str!("../starter/reldo/gitignore")),
            ),
        ],
    }
}

/// crit's orchestrator prompt followed by the findings contract it answers in.
fn crit_orchestrator() -> String {
    let contract =
        contract_instructions(&OutputSpec::Contract(Contract::FindingsJson)).unwrap_or_default();
    crate::engine::prompts::with_contract(ORCHESTRATOR, &contract)
}

/// What happened to one starter file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Created(PathBuf),
    /// It was there and `force` replaced it.
    Replaced(PathBuf),
}

/// Why the starter was not written.
#[derive(Debug, thiserror::Error)]
pub enum StarterError {
    #[error(
        "{} already exist{}; nothing was written (--force replaces them)",
        .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        if .0.len() == 1 { "s" } else { "" }
    )]
    Exists(Vec<PathBuf>),
    #[error("{}: {source}", path.display())]
    Fs {
        path: PathBuf,
        source: crit_os::write::FsError,
    },
}

/// Writes the starter files of `layout` under `root`. Without `force`, any
/// of them existing stops it before anything is written.
pub fn write(root: &Path, layout: Layout, force: bool) -> Result<Vec<Written>, StarterError> {
    let files = files(layout);
    // Beneath the project root and never through a symlink it holds: a
    // checkout's `.crit` or `.crit/config.yaml` pointing at a user's file is
    // refused by name (--force replaces files, not what links point at).
    let confined = crit_os::write::Root::open(root).map_err(|e| StarterError::Fs {
        path: root.to_path_buf(),
        source: e,
    })?;
    let fs = |rel: &str| {
        let path = root.join(rel);
        move |e| StarterError::Fs { path, source: e }
    };
    let mut existing = Vec::new();
    for (rel, _) in &files {
        if confined.exists(rel).map_err(fs(rel))? {
            existing.push(PathBuf::from(rel));
        }
    }
    if !force && !existing.is_empty() {
        return Err(StarterError::Exists(existing));
    }
    let mut out = Vec::new();
    for (rel, text) in files {
        let path = root.join(rel);
        if existing.iter().any(|e| e == Path::new(rel)) {
            confined
                .write_atomic(rel, text.as_bytes())
                .map_err(fs(rel))?;
            out.push(Written::Replaced(path));
            continue;
        }
        // Never over a file that appeared meanwhile.
        if !confined
            .create_new(rel, text.as_bytes(), 0o644)
            .map_err(fs(rel))?
        {
            return Err(StarterError::Exists(vec![PathBuf::from(rel)]));
        }
        out.push(Written::Created(path));
    }
    Ok(out)
}
