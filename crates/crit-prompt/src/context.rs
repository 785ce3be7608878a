//! What the reviewers are told about the project (the prompt-review plugin's
//! `ProjectContext`): its name, stack, test framework and build tool, its
//! conventions (CLAUDE.md, AGENTS.md and `.claude/rules`, through crit's one
//! conventions discovery, fitted to `context.max_tokens`), a listing of its
//! files that respects .gitignore, and the `extra_files` the settings name.
//!
//! Everything is read inside the project root; the rendered block depends only
//! on the files, so identical projects give identical bytes (and cache keys).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stack;
use crit_project::config::prompt_review::ContextConfig;
use crit_project::context::walk::{Read, read_confined};
use crit_project::context::{self as conventions, ContextOptions, UnderReview};

/// Entries the structure listing shows at most.
const MAX_LISTED: usize = 200;
/// Convention lines kept at most.
const MAX_CONVENTIONS: usize = 30;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectContext {
    pub project_name: String,
    pub stack: Vec<String>,
    /// The conventions block (CLAUDE.md and friends), within `max_tokens`.
    pub claude_md: Option<String>,
    /// Files and directories, `structure_depth` levels deep.
    pub structure: String,
    /// The list items of the convention files, one rule each.
    pub conventions: Vec<String>,
    pub test_framework: Option<String>,
    pub build_tool: Option<String>,
    pub compiler_target: Option<String>,
    /// `extra_files`: (path, text), each within `max_tokens`.
    pub extra_files: Vec<(String, String)>,
    /// What could not be given, for people (`docs/x.md: not found`).
    pub notes: Vec<String>,
    /// The names in the project root (directories end with `/`), for triggers.
    pub root_entries: Vec<String>,
}

/// Builds the context of the project at `root`, seen from `cwd`.
pub fn build(root: &Path, cwd: &Path, cfg: &ContextConfig) -> ProjectContext {
    let mut ctx = ProjectContext::default();
    let Ok(root) = std::fs::canonicalize(root) else {
        ctx.project_name = dir_name(root);
        ctx.notes
            .push(format!("{}: not a directory", root.display()));
        return ctx;
    };
    let found = stack::detect(&root, cfg.include_package_json);
    ctx.stack = found.stack;
    ctx.test_framework = found.test_framework;
    ctx.build_tool = found.build_tool;
    ctx.compiler_target = found.compiler_target;
    if cfg.include_claude_md {
        conventions_of(&root, cwd, cfg.max_tokens, &mut ctx);
    }
    ctx.project_name = found
        .name
        .or_else(|| claude_md_title(&root))
        .unwrap_or_else(|| dir_name(&root));
    if cfg.include_structure {
        ctx.structure = structure(&root, cfg.structure_depth);
    }
    ctx.root_entries = root_entries(&root);
    for rel in &cfg.extra_files {
        match read_confined(&root, rel.trim_start_matches("./")) {
            Read::Text { text, .. } => {
                ctx.extra_files
                    .push((rel.clone(), truncate(&text, cfg.max_tokens)));
            }
            Read::Missing => ctx.notes.push(format!("{rel}: not found")),
            Read::Skipped(o) => ctx.notes.push(format!("{rel}: {}", o.reason)),
        }
    }
    ctx
}

fn conventions_of(root: &Path, cwd: &Path, max_tokens: usize, ctx: &mut ProjectContext) {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| root.to_path_buf());
    let cwd = if cwd.starts_with(root) {
        cwd
    } else {
        root.to_path_buf()
    };
    let opts = ContextOptions {
        token_budget: max_tokens,
    };
    match conventions::discover(root, &cwd, UnderReview::Everything, &opts) {
        Ok(found) => {
            for o in &found.omitted {
                ctx.notes.push(format!("{}: {}", o.path, o.reason));
            }
            ctx.conventions = found
                .sections
                .iter()
                .flat_map(|s| s.text.lines())
                .filter_map(list_item)
                .take(MAX_CONVENTIONS)
                .collect();
            let block = found.render();
            ctx.claude_md = (!block.trim().is_empty()).then_some(block);
        }
        Err(e) => ctx.notes.push(e.to_string()),
    }
}

/// `- item` / `* item` / `1. item` → `item`.
fn list_item(line: &str) -> Option<String> {
    let t = line.trim_start();
    let rest = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| {
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            (digits > 0)
                .then(|| t[digits..].strip_prefix(". "))
                .flatten()
        })?;
    let rest = rest.trim();
    (rest.len() > 3).then(|| rest.chars().take(200).collect())
}

/// The first `# Title` of the root CLAUDE.md.
fn claude_md_title(root: &Path) -> Option<String> {
    let Read::Text { text, .. } = read_confined(root, "CLAUDE.md") else {
        return None;
    };
    text.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn dir_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into())
}

/// `text` cut to about `max_tokens` (4 bytes a token) at a line boundary.
fn truncate(text: &str, max_tokens: usize) -> String {
    let limit = max_tokens.saturating_mul(4);
    if text.len() <= limit {
        return text.trim_end().to_string();
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').unwrap_or(cut);
    format!(
        "{}\n[… truncated by crit to {max_tokens} tokens]",
        text[..cut].trim_end()
    )
}

/// The names in `root`, sorted; directories end with `/`.
fn root_entries(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .map(|it| {
            it.filter_map(Result::ok)
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if e.path().is_dir() {
                        format!("{name}/")
                    } else {
                        name
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The project's files and directories to `depth` levels, sorted, skipping
/// hidden and git-ignored entries; directories end with `/`.
fn structure(root: &Path, depth: usize) -> String {
    if depth == 0 {
        return String::new();
    }
    let walk = ignore::WalkBuilder::new(root)
        .max_depth(Some(depth))
        .hidden(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut lines = Vec::new();
    let mut more = 0usize;
    for entry in walk.filter_map(Result::ok) {
        if entry.depth() == 0 {
            continue;
        }
        if lines.len() >= MAX_LISTED {
            more += 1;
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let dir = entry.file_type().is_some_and(|t| t.is_dir());
        lines.push(format!(
            "{}{}{}",
            "  ".repeat(entry.depth() - 1),
            name,
            if dir { "/" } else { "" }
        ));
    }
    if more > 0 {
        lines.push(format!("… and {more} more"));
    }
    lines.join("\n")
}

impl ProjectContext {
    /// The block every reviewer gets (the cached shared prefix of the system prompt).
    pub fn render(&self) -> String {
        let mut out = String::from("# The project\n\n");
        out.push_str(&format!("Project: {}\n", self.project_name));
        if !self.stack.is_empty() {
            out.push_str(&format!("Stack: {}\n", self.stack.join(", ")));
        }
        for (label, value) in [
            ("Test framework", &self.test_framework),
            ("Build tool", &self.build_tool),
            ("TypeScript target", &self.compiler_target),
        ] {
            if let Some(v) = value {
                out.push_str(&format!("{label}: {v}\n"));
            }
        }
        if !self.structure.is_empty() {
            out.push_str("\n## Files\n\n```\n");
            out.push_str(&self.structure);
            out.push_str("\n```\n");
        }
        if let Some(block) = &self.claude_md {
            out.push('\n');
            out.push_str(block.trim_end());
            out.push('\n');
        }
        for (path, text) in &self.extra_files {
            out.push_str(&format!("\n<file path=\"{path}\">\n{text}\n</file>\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items() {
        assert_eq!(list_item("- Use pnpm").as_deref(), Some("Use pnpm"));
        assert_eq!(
            list_item("  * Named exports only").as_deref(),
            Some("Named exports only")
        );
        assert_eq!(
            list_item("12. Keep PRs small").as_deref(),
            Some("Keep PRs small")
        );
        assert_eq!(list_item("- ok"), None);
        assert_eq!(list_item("Plain text"), None);
    }

    #[test]
    fn truncation_marks_the_cut() {
        let t = truncate(&"line\n".repeat(100), 10);
        assert!(t.ends_with("[… truncated by crit to 10 tokens]"), "{t}");
        assert!(t.len() < 100);
        assert_eq!(truncate("short\n", 10), "short");
    }
}
