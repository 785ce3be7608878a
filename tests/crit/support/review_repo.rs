//! The repository the template-review tests review: conventions, two
//! path-scoped rules, and one commit on top of the base.

use serde_json::{Value, json};
use tempfile::TempDir;

use super::{git, init_repo, write};

/// A repository with conventions, two path-scoped rules, and one commit on
/// top of the base that changes `src/api/users.rs`.
pub fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(
        d,
        "CLAUDE.md",
        "# Conventions\nErrors are returned, never unwrapped.\n",
    );
    write(
        d,
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**\"\n---\nEvery handler checks the caller's permission first.\n",
    );
    write(
        d,
        ".claude/rules/docs.md",
        "---\npaths: \"docs/**\"\n---\nDocs use sentence case headings.\n",
    );
    write(
        d,
        "src/api/users.rs",
        "pub fn get(id: u32) -> User {\n    db::find(id).unwrap()\n}\n",
    );
    write(
        d,
        "docs/hld.md",
        "# Architecture\n\nAll storage goes through the repository layer.\n",
    );
    write(
        d,
        "docs/slice.md",
        "# Slice\n\nThe handler reads the database directly.\n",
    );
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    write(
        d,
        "src/api/users.rs",
        "pub fn get(id: u32) -> User {\n    let user = db::find(id).unwrap();\n    audit(id);\n    user\n}\n",
    );
    git(d, &["commit", "-q", "-am", "audit reads"]);
    dir
}

pub fn findings_answer() -> Value {
    json!({"verdict": "FAIL", "summary": "The new read can panic.", "findings": [{
        "file_path": "src/api/users.rs", "line_start": 2, "line_end": 2, "priority": 1,
        "title": "[P1] unwrap on a database read panics on a missing user",
        "body": "`db::find` returns None for unknown ids; the handler should return NotFound."}]})
}
