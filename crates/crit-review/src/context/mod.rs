//! Project conventions a reviewer is given: CLAUDE.md and AGENTS.md from the root down to the working directory, and `.claude/rules` that apply to the files under review.
