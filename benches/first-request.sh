#!/usr/bin/env bash
# How soon a big change's review starts: `crit review code` over a 10 MB
# diff (160 files of 800 lines) against a fake Anthropic server on
# 127.0.0.1 answering after LATENCY seconds (default 1): the time from
# starting crit to its first line on stderr and to the server's first
# request, and the whole run. With CRIT_BIN_BEFORE, another build in the
# same run, side by side. Needs python3, curl and git.
# Usage: benches/first-request.sh
#   CRIT_BIN=path/to/crit (default: this tree's release build)
#   CRIT_BIN_BEFORE=path/to/another/crit (optional)
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
mkdir -p "$repo/src"
git -C "$repo" init -q -b main
git -C "$repo" config user.name Bench
git -C "$repo" config user.email bench@example.com
echo "# Project" >"$repo/README.md"
git -C "$repo" add -A
git -C "$repo" commit -q -m base
python3 - "$repo" 160 <<'PY'
import sys
repo, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    with open(f"{repo}/src/f{i}.py", "w") as f:
        for j in range(800):
            f.write(f"value_f{i}_l{j} = compute_something_long({i}, {j})  # f{i} l{j} pad\n".ljust(71) + "\n")
PY
git -C "$repo" add -A
git -C "$repo" commit -q -m big
size=$(git -C "$repo" diff HEAD~1..HEAD | wc -c)
echo "diff of $((size / 1000000)).$((size % 1000000 / 100000)) MB, server answering after ${latency} s"

measure() { # label bin
  local label=$1 bin=$2 yes=()
  # A build that asks before spending is told to go ahead.
  if "$bin" review code --help 2>/dev/null | grep -q -- '--yes'; then yes=(--yes); fi
  curl -s -X POST "http://127.0.0.1:$port/reset" >/dev/null
  (cd "$repo" && python3 - "$bin" "${yes[@]}" >"$work/times" <<'PY'
import subprocess, sys, time
argv = [sys.argv[1], "review", "code", "--diff", "HEAD~1..HEAD", "--provider", "anthropic",
        "--no-log", "--json", "--no-cache"] + sys.argv[2:]
start = time.time()
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
first_line = None
for line in p.stderr:
    if first_line is None:
        first_line = time.time() - start
p.wait()
print(start, first_line if first_line is not None else -1, time.time() - start, p.returncode)
PY
  )
  read -r start first_line wall code <"$work/times"
  python3 - "$label" "$start" "$first_line" "$wall" "$code" "$(curl -s "http://127.0.0.1:$port/stats")" <<'PY'
import json, sys
label, start, first_line, wall, code, stats = sys.argv[1:7]
s = json.loads(stats)
first_req = s["first_request_at"] - float(start) if s["first_request_at"] else float("nan")
print(f"  {label}: first stderr line {float(first_line):.2f} s, first request {first_req:.2f} s, "
      f"whole review {float(wall):.2f} s (exit {code}, {s['requests']} requests)")
PY
}
measure after "$CRIT_BIN"
if [ -n "${CRIT_BIN_BEFORE:-}" ]; then measure before "$CRIT_BIN_BEFORE"; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
