#!/usr/bin/env bash
# A panel of four reviewers against a model answering after 1 s (budget:
# ≤ 1.1·L when the reviewers share nothing they can read from the prompt
# cache, one extra L at most when they do): four reviewers on one model
# (they share a prefix over the model's cacheable minimum, so three wait for
# the first one's cache write), four on four models (nothing to read: all
# start at once), and one reviewer alone, against a fake Anthropic server on
# 127.0.0.1. Needs hyperfine, python3 and git.
# Usage: benches/panel-start.sh   (CRIT_BIN=path/to/crit compares another build)
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
latency=${LATENCY:-1}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
mkdir -p "$HOME"
python3 "$here/benches/support/fake_anthropic.py" "$latency" >"$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
export ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL=http://127.0.0.1:$port

repo=$work/repo
mkdir -p "$repo/src" "$repo/.crit/templates"
git -C "$repo" init -q -b main
git -C "$repo" config user.name Bench
git -C "$repo" config user.email bench@example.com
# Conventions long enough that the shared prefix is over every model's
# minimum (4,096 tokens at most), as a real project's often is.
{
  echo "# Conventions"
  for i in $(seq 1 400); do echo "- Rule $i: errors are returned with the file and line they came from, never unwrapped."; done
} >"$repo/CLAUDE.md"
for i in $(seq 1 20); do printf 'def f%d(x):\n    return x + %d\n' "$i" "$i" >"$repo/src/m$i.py"; done
git -C "$repo" add -A
git -C "$repo" commit -q -m base
for i in $(seq 1 20); do sed -i 's/return x + /return x - /' "$repo/src/m$i.py"; done
git -C "$repo" commit -q -am change
panel() { # name, then one model per reviewer
  local name=$1
  shift
  {
    printf 'name: %s\ndescription: A panel\nprompt_builder: code\nsystem_prompt: You review code changes.\n' "$name"
    printf 'allowed_tools: [Read, Grep]\nsetting_sources: [project]\ninputs:\n  optional:\n    - name: diff\n      description: Git ref\nreviewers:\n'
    local k=0
    for m in "$@"; do
      k=$((k + 1))
      printf '  - name: r%d\n    model: %s\n    system_prompt: You are reviewer %d.\n' "$k" "$m" "$k"
    done
  } >"$repo/.crit/templates/$name.yaml"
}
panel one sonnet
panel same sonnet sonnet sonnet sonnet
panel mixed claude-sonnet-5-5 claude-opus-5-5 claude-haiku-4-5 claude-sonnet-4-6
git -C "$repo" add -A
git -C "$repo" commit -q -m templates
cd "$repo"
"$CRIT_BIN" trust >/dev/null 2>&1 || true
run() { echo "$CRIT_BIN review $1 --diff HEAD~2..HEAD~1 --provider anthropic --no-log --json -q --no-cache"; }
for t in one same mixed; do
  curl -s -X POST "http://127.0.0.1:$port/reset" >/dev/null
  $(run $t) >"$work/$t.json" || true
  s=$(curl -s "http://127.0.0.1:$port/stats")
  echo "$t: verdict $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$work/$t.json"), server: $s"
done
hyperfine --shell=none --warmup 1 --runs 5 --export-json "$work/h.json" \
  --command-name "1 reviewer" "$(run one)" \
  --command-name "4 reviewers, one model" "$(run same)" \
  --command-name "4 reviewers, four models" "$(run mixed)" >/dev/null
python3 - "$work/h.json" "$latency" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
L = float(sys.argv[2])
one = rs[0]["median"]
for r in rs:
    print(f"{r['command']}: median {r['median']:.3f} s ({r['median'] / one:.2f}x one reviewer, {r['median'] / L:.2f} L)")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
