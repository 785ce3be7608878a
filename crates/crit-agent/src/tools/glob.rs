//! `Glob`: files matching a glob pattern, newest first, confined to the project.
//! Paths are shown relative to the project root (absolute for extra roots).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::GlobBuilder;
use serde_json::{Value, json};

use super::walk;
use crate::confine::Roots;
use crate::context::ToolContext;
use crate::input::Input;
use crate::tool::{Tool, ToolFuture, ToolOutput};

/// Paths listed before the rest is summarized as "N more".
const MAX_RESULTS: usize = 100;

#[derive(Debug, Clone, Copy, Default)]
pub struct GlobTool;

impl Tool for GlobTool {
    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> &str {
        include_str!("../../prompts/tools/glob.md")
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern relative to the search directory, e.g. \"**/*.rs\" or \"src/*.{ts,tsx}\""},
                "path": {"type": "string", "description": "Directory to search in (default: the project root)"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    fn call<'a>(&'a self, input: Value, cx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let parsed = Input::parse(input, &["pattern", "path"])
                .and_then(|i| Ok((i.req_str("pattern")?, i.opt_str("path")?)));
            let (pattern, path) = match parsed {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e.to_string()),
            };
            let dir = match resolve_dir(cx, path.as_deref()) {
                Ok(d) => d,
                Err(out) => return out,
            };
            let roots = cx.roots.clone();
            let cancel = cx.cancel.clone();
            let max = cx.limits.max_output_bytes;
            super::blocking(cx, move || {
                glob(&pattern, &dir, &roots, max, || cancel.is_cancelled())
            })
            .await
        })
    }
}

/// The search directory: confined, and a directory.
pub(super) fn resolve_dir(cx: &ToolContext, path: Option<&str>) -> Result<PathBuf, ToolOutput> {
    let Some(given) = path.filter(|p| !p.trim().is_empty()) else {
        return Ok(cx.root().to_path_buf());
    };
    let dir = cx
        .roots
        .resolve(given)
        .map_err(|e| ToolOutput::error(e.to_string()))?;
    if !dir.is_dir() {
        return Err(ToolOutput::error(format!(
            "field `path`: `{given}` is not a directory (resolved to `{}`)",
            dir.display()
        )));
    }
    Ok(dir)
}

fn glob(
    pattern: &str,
    dir: &Path,
    roots: &Roots,
    max_bytes: usize,
    cancelled: impl Fn() -> bool,
) -> ToolOutput {
    if pattern.starts_with('/') || pattern.split('/').any(|c| c == "..") {
        return ToolOutput::error(format!(
            "field `pattern`: `{pattern}` must be relative to the search directory and must not \
             contain `..`; put the directory in `path` instead"
        ));
    }
    let matcher = match GlobBuilder::new(pattern).literal_separator(true).build() {
        Ok(g) => g.compile_matcher(),
        Err(e) => return ToolOutput::error(format!("field `pattern`: invalid glob: {e}")),
    };
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in walk::builder(dir).build() {
        if cancelled() {
            return ToolOutput::error("cancelled");
        }
        let Ok(entry) = entry else { continue };
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        if !matcher.is_match(rel) || !walk::admit_file(&entry, roots) {
            continue;
        }
        let mtime = entry.metadata().ok().and_then(|m| m.modified().ok());
        found.push((mtime.unwrap_or(SystemTime::UNIX_EPOCH), entry.into_path()));
    }
    if found.is_empty() {
        return ToolOutput::ok(format!(
            "No files found matching `{pattern}` in `{}`",
            dir.display()
        ));
    }
    // Newest first, as Claude Code does; ties by path so output is stable.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut out = String::new();
    let mut shown = 0;
    for (_, path) in &found {
        let line = format!("{}\n", walk::display_path(roots, path));
        if shown == MAX_RESULTS || out.len() + line.len() > max_bytes {
            break;
        }
        out.push_str(&line);
        shown += 1;
    }
    if shown < found.len() {
        out.push_str(&format!(
            "({} more files not shown; use a more specific pattern or path)\n",
            found.len() - shown
        ));
    }
    ToolOutput::ok(out)
}
