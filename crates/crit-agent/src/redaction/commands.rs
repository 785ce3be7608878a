//! Commands that would cut slices of a file holding secrets are refused.
//!
//! `grep -o`, `head -c`, `tail -c` or a pattern that matches half a token
//! return a piece of a secret that no detector recognizes afterwards; Read
//! and Grep mask a file's secrets on its whole text first, so the model is
//! sent there. The text programs (cat, head, tail, grep, rg) and `git grep`
//! are checked against every file they would read — each directory they
//! would search walked as they walk it — before they run.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::{Secrets, ToolRedactor};
use crate::confine::Roots;
use crate::tools::CheckedCommand;

/// Files a recursive search is checked over before it is refused as too
/// large to check.
const MAX_FILES: usize = 20_000;

/// Files named in a refusal before the rest is counted.
const NAMED: usize = 5;

/// Why `cmd` may not run, when a file it reads holds secrets.
pub(crate) async fn refusal(
    cmd: &CheckedCommand,
    roots: &Roots,
    redaction: &ToolRedactor,
) -> Option<String> {
    let targets = targets(cmd)?;
    let roots = roots.clone();
    let redaction = redaction.clone();
    let program = cmd.program.clone();
    tokio::task::spawn_blocking(move || check(&program, &targets, &roots, &redaction))
        .await
        .unwrap_or_else(|e| {
            Some(format!(
                "refused: crit could not check the command's files: {e}"
            ))
        })
}

/// What a command reads, and how it walks a directory.
struct Targets {
    paths: Vec<String>,
    walk: Walk,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Named files only; a directory is not read.
    None,
    /// Everything under a directory, as `grep -r` reads it.
    All,
    /// What ripgrep and git search by default: no hidden or ignored files.
    Filtered,
}

/// The files and directories `cmd` reads, when it is a command that shows
/// their content; `None` for every other command.
fn targets(cmd: &CheckedCommand) -> Option<Targets> {
    let has = |flags: &[&str], short: char| {
        cmd.args.iter().any(|a| {
            flags.contains(&a.as_str())
                || (a.starts_with('-') && !a.starts_with("--") && a.contains(short))
        })
    };
    let (paths, walk) = match cmd.program.as_str() {
        "cat" | "head" | "tail" => (cmd.reads.clone(), Walk::None),
        "grep" => {
            let recursive = has(&["--recursive"], 'r');
            let paths = match (cmd.reads.is_empty(), recursive) {
                (true, true) => vec![".".to_string()],
                _ => cmd.reads.clone(),
            };
            (paths, if recursive { Walk::All } else { Walk::None })
        }
        "rg" => {
            let everything = cmd.args.iter().any(|a| {
                a.starts_with("-u")
                    || a == "--unrestricted"
                    || a == "--hidden"
                    || a.starts_with("--no-ignore")
            });
            let paths = match cmd.reads.is_empty() {
                true => vec![".".to_string()],
                false => cmd.reads.clone(),
            };
            (
                paths,
                if everything {
                    Walk::All
                } else {
                    Walk::Filtered
                },
            )
        }
        "git" => {
            let call = cmd.git.as_ref()?;
            if call.sub != "grep" {
                return None;
            }
            let paths = match call.pathspecs.is_empty() {
                true => vec![".".to_string()],
                false => call.pathspecs.clone(),
            };
            (paths, Walk::Filtered)
        }
        _ => return None,
    };
    (!paths.is_empty()).then_some(Targets { paths, walk })
}

fn check(
    program: &str,
    targets: &Targets,
    roots: &Roots,
    redaction: &ToolRedactor,
) -> Option<String> {
    let root = roots.root();
    let mut holding: Vec<(String, Secrets)> = Vec::new();
    let mut files = 0usize;
    for given in &targets.paths {
        let Ok(path) = roots.resolve(given) else {
            continue;
        };
        let mut each = |file: &Path| match redaction.secrets_in(file, root) {
            Secrets::None => {}
            s => holding.push((shown(file, root), s)),
        };
        if path.is_dir() {
            if targets.walk == Walk::None {
                continue;
            }
            for file in walk(&path, targets.walk, roots) {
                files += 1;
                if files > MAX_FILES {
                    return Some(format!(
                        "refused: `{program}` would search more than {MAX_FILES} files, more than \
                         crit checks for secrets before a command slices them; narrow the path, \
                         or use the Grep tool, which masks secrets itself"
                    ));
                }
                each(&file);
            }
        } else if path.is_file() {
            each(&path);
        }
    }
    if holding.is_empty() {
        return None;
    }
    if let [(_, Secrets::Refused(why))] = holding.as_slice() {
        return Some(why.clone());
    }
    let named: Vec<String> = holding
        .iter()
        .take(NAMED)
        .map(|(p, s)| match s {
            Secrets::Found(n) => format!("`{p}` ({n})"),
            _ => format!("`{p}`"),
        })
        .collect();
    let more = match holding.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let (verb, them) = match holding.len() {
        1 => ("holds", "it"),
        _ => ("hold", "them"),
    };
    Some(format!(
        "refused: {}{more} {verb} secrets, and `{program}` could return a slice of one that \
         crit's redaction would not recognize. Read {them} with the Read tool or search {them} \
         with the Grep tool: both mask secrets first. To run `{program}` on other files, name \
         those files instead",
        named.join(", ")
    ))
}

/// The regular files under `dir` a search would read.
fn walk<'a>(dir: &Path, how: Walk, roots: &'a Roots) -> impl Iterator<Item = PathBuf> + 'a {
    let filtered = how == Walk::Filtered;
    let mut b = WalkBuilder::new(dir);
    b.hidden(filtered)
        .git_ignore(filtered)
        .git_exclude(filtered)
        .git_global(filtered)
        .ignore(filtered)
        .parents(filtered)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git");
    b.build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && roots.admits_entry(e.path()))
        .map(ignore::DirEntry::into_path)
}

fn shown(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}
