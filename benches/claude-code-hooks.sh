#!/usr/bin/env bash
# What Claude Code waits for on every prompt and status-line refresh (budget:
# < 5 ms each): `crit hook claude-code UserPromptSubmit` on a prompt without
# `!!!`, and `crit statusline`, against `crit --version` (process start-up).
# hyperfine subtracts its shell's own start-up. Needs hyperfine.
# Usage: benches/claude-code-hooks.sh [path/to/crit]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release -p crit-cli --quiet
  bin=${CARGO_TARGET_DIR:-target}/release/crit
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s' '{"session_id":"28cc4a1e-9f0b-4d1c-8a51-1234567890ab","transcript_path":"/home/u/.claude/projects/p/28cc.jsonl","cwd":"/tmp","prompt_id":"6504","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Refactor the settings page so the browser config section is its own component."}' >"$tmp/prompt.json"
printf '%s' '{"session_id":"28cc4a1e-9f0b-4d1c-8a51-1234567890ab","model":{"display_name":"Opus"},"workspace":{"current_dir":"/tmp","project_dir":"/tmp"},"cost":{"total_cost_usd":0.01}}' >"$tmp/status.json"
export XDG_STATE_HOME="$tmp/state"
hyperfine --warmup 50 --runs 500 \
  "$bin --version" \
  "$bin hook claude-code UserPromptSubmit < $tmp/prompt.json" \
  "$bin statusline < $tmp/status.json"
