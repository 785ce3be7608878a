//! The review kinds crit runs: configuration files with provenance; review
//! templates (schema, loading, registry, prompt rendering); what a code review
//! looks at (`scope`: the diff, computed with git); project conventions
//! (`context`: CLAUDE.md, AGENTS.md, `.claude/rules`); reviewer definitions in
//! `.claude/agents`; sessions and the audit log; suppressions; whose rules
//! judge a change (`trust`); prompt review (`prompt`: reviewers, a
//! deterministic editor, a diff to approve); Claude Code's hooks, status line
//! and install (`claude_code`); the history in the audit logs (`stats`).

pub mod code;

pub mod orchestrate;
pub mod panel;
pub mod plan_panel;
pub mod prompt;
pub mod redaction;
pub mod review;
mod sealed;
pub mod session;
pub mod starter;
pub mod stats;
pub mod template;
