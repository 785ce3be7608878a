#!/usr/bin/env bash
# `crit plan` on a 2,000-line plan whose checks make four fixes: the fsyncs
# it makes (counted with `strace -f -c`) and its wall time (hyperfine), for
# this build and, with CRIT_BIN_BEFORE, another one side by side. Every run
# starts from the same fresh session directory (no state.yaml yet).
# Needs strace, hyperfine and python3.
# Usage: benches/plan-writes.sh
#   CRIT_BIN=path/to/crit (default: this tree's release build)
#   CRIT_BIN_BEFORE=path/to/another/crit (optional, compared in the same run)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/state
unset ANTHROPIC_API_KEY OPENAI_API_KEY CRIT_PROVIDER CRIT_MODEL
mkdir -p "$HOME" "$work/template"

python3 - "$work/template" <<'PY'
import sys
d = sys.argv[1]
lines = [f"{i}. Step {i}: update the handler and its test, then ship it." for i in range(1, 2001)]
for n, word in [(300, "eval()"), (800, "SELECT *"), (1300, "chmod 777"), (1800, "rm -rf /")]:
    lines[n] = f"{n + 1}. Step {n + 1}: call {word} on the input."
open(f"{d}/plan.md", "w").write("# Plan\n\n" + "\n".join(lines) + "\n")
open(f"{d}/context.yaml", "w").write('reviewer_persona: "Performance architect"\n')
open(f"{d}/checks.yaml", "w").write("""checks:
  - id: no_eval
    pattern: "eval()"
    fix: {action: replace, with: "JSON.parse()"}
  - id: no_star
    pattern: "SELECT *"
    fix: {action: replace, with: "SELECT id"}
  - id: no_777
    pattern: "chmod 777"
    fix: {action: replace, with: "chmod 750"}
  - id: no_rmrf
    pattern: "rm -rf /"
    fix: {action: replace, with: "rm -rf ./build"}
""")
PY

fresh() { rm -rf "$work/s" && cp -r "$work/template" "$work/s"; }

run_one() { # name bin
  local name=$1 bin=$2
  # Each build gets its own state directory, and one run before the count
  # writes the plan-seal key there: what is counted is a run's own writes,
  # whichever build runs first.
  local state=$work/state-$name
  fresh
  XDG_STATE_HOME=$state "$bin" plan "$work/s" >/dev/null 2>&1 || true
  fresh
  local code=0
  XDG_STATE_HOME=$state strace -f -c -e trace=fsync,fdatasync -o "$work/strace.$name" "$bin" plan "$work/s" >"$work/out.$name" 2>&1 || code=$?
  local fsyncs
  fsyncs=$(awk '$NF == "fsync" || $NF == "fdatasync" {n += $4} END {print n + 0}' "$work/strace.$name")
  echo "$name: exit $code, $(head -1 "$work/out.$name"), $(grep -c . "$work/s/plan.md") plan lines, fsyncs: $fsyncs"
}

run_one after "$CRIT_BIN"
cmds=(--command-name after "$CRIT_BIN plan $work/s")
if [ -n "${CRIT_BIN_BEFORE:-}" ]; then
  run_one before "$CRIT_BIN_BEFORE"
  cmds+=(--command-name before "$CRIT_BIN_BEFORE plan $work/s")
fi
hyperfine --shell=bash --warmup 1 --runs 10 --prepare "rm -rf $work/s && cp -r $work/template $work/s" \
  --export-json "$work/h.json" "${cmds[@]}" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
for r in rs:
    print(f"  {r['command']}: median {r['median'] * 1000:.1f} ms (min {r['min'] * 1000:.1f}, max {r['max'] * 1000:.1f})")
if len(rs) == 2:
    print(f"  after / before: {rs[0]['median'] / rs[1]['median']:.2f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
