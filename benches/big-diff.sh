#!/usr/bin/env bash
# A big change against a model answering after 1 s: `crit review code` over a
# 5 MB and a 10 MB diff (80 and 160 files of 800 lines), split into parts:
# the wall time, the most requests the fake server had in flight at once,
# and the coverage (complete or not, parts, what was left out). Then the
# 10 MB diff against a server that allows only 6 requests at a time (it
# says so in anthropic-ratelimit-requests-remaining and answers 429 over it),
# to show crit backing off. Needs hyperfine, python3 and git.
# Usage: benches/big-diff.sh   (CRIT_BIN=path/to/crit compares another build)
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
# A build that asks before spending above $1 is told to go ahead.
yes=$("$CRIT_BIN" review code --help 2>/dev/null | grep -q -- --yes && echo --yes || true)
latency=${LATENCY:-1}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
mkdir -p "$HOME"
start_server() { # delay limit portfile
  python3 "$here/benches/support/fake_anthropic.py" "$1" "$2" >"$3" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$3" ] && break; sleep 0.1; done
}
start_server "$latency" 0 "$work/port"
start_server "$latency" 6 "$work/port6"
export ANTHROPIC_API_KEY=sk-ant-bench

make_repo() { # files -> repo with a change adding 800 lines of 72 bytes to each
  local files=$1 repo=$work/repo$1
  mkdir -p "$repo/src"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.name Bench
  git -C "$repo" config user.email bench@example.com
  echo "# Project" >"$repo/README.md"
  git -C "$repo" add -A
  git -C "$repo" commit -q -m base
  python3 - "$repo" "$files" <<'PY'
import sys
repo, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    with open(f"{repo}/src/f{i}.py", "w") as f:
        for j in range(800):
            f.write(f"value_f{i}_l{j} = compute_something_long({i}, {j})  # f{i} l{j} pad\n".ljust(71) + "\n")
PY
  git -C "$repo" add -A
  git -C "$repo" commit -q -m big
  echo "$repo"
}
report() { # label port json
  python3 - "$1" "$3" "$(curl -s "http://127.0.0.1:$2/stats")" <<'PY'
import json, sys
label, path, stats = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
r = json.load(open(path))
c = r.get("coverage") or {}
left = c.get("left_out") or []
causes = sorted({l.get("cause") for l in left})
print(f"  {label}: verdict {r['verdict']}, complete {c.get('complete')}, parts {c.get('chunks')}, "
      f"left out {len(left)} ({', '.join(map(str, causes)) or 'none'}); server: {stats['requests']} requests, "
      f"at most {stats['max_in_flight']} in flight, {stats['rejected']} answered 429")
PY
}
for files in 80 160; do
  repo=$(make_repo $files)
  size=$(git -C "$repo" diff HEAD~1..HEAD | wc -c)
  echo "$files files, diff of $((size / 1000000)).$((size % 1000000 / 100000)) MB:"
  cd "$repo"
  cmd="$CRIT_BIN review code --diff HEAD~1..HEAD --provider anthropic --no-log --json -q --no-cache $yes"
  port=$(cat "$work/port")
  curl -s -X POST "http://127.0.0.1:$port/reset" >/dev/null
  start=$(date +%s.%N)
  ANTHROPIC_BASE_URL=http://127.0.0.1:$port $cmd >"$work/out.json" || true
  end=$(date +%s.%N)
  report "wall $(python3 -c "print(f'{$end - $start:.2f}')") s" "$port" "$work/out.json"
  if [ "$files" = 160 ]; then
    port=$(cat "$work/port6")
    curl -s -X POST "http://127.0.0.1:$port/reset" >/dev/null
    start=$(date +%s.%N)
    ANTHROPIC_BASE_URL=http://127.0.0.1:$port $cmd >"$work/out.json" || true
    end=$(date +%s.%N)
    report "6 requests allowed at once: wall $(python3 -c "print(f'{$end - $start:.2f}')") s" "$port" "$work/out.json"
  fi
  cd "$here"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
