#!/usr/bin/env bash
# The hunk cache's share of a review (budget: at most 30% of the review's
# own run time, one write per review; see CONTRIBUTING.md): `crit review
# code` over a change of N files (one edited line each), answered at once by
# a fake Anthropic server on 127.0.0.1, timed with --no-cache, with an empty
# cache (every hunk reviewed, then stored) and with a full one (every hunk
# from the cache, nothing sent).
# Needs hyperfine, python3 and git.
# Usage: benches/hunk-cache.sh [FILES...]   (default: 3000 8000)
#   CRIT_BIN=path/to/crit compares another build (default: this tree's release build).
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
# A build that asks before spending above $1 is told to go ahead.
yes=$("$CRIT_BIN" review code --help 2>/dev/null | grep -q -- --yes && echo --yes || true)
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(3000 8000)

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

python3 "$here/benches/support/fake_anthropic.py" 0 >"$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
export ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$work/port")

for n in "${sizes[@]}"; do
  repo=$work/repo$n
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.name Bench
  git -C "$repo" config user.email bench@example.com
  for i in $(seq 0 $((n - 1))); do
    d=$repo/src/m$((i / 100))
    [ -d "$d" ] || mkdir -p "$d"
    printf 'def f%d(x):\n    """Handler %d."""\n    y = x + 1\n    return y * %d\n\n\ndef g%d():\n    return f%d(1)\n' \
      "$i" "$i" "$i" "$i" "$i" >"$d/f$i.py"
  done
  git -C "$repo" add -A
  git -C "$repo" commit -q -m base
  for i in $(seq 0 $((n - 1))); do
    sed -i 's/y = x + 1/y = x + 2/' "$repo/src/m$((i / 100))/f$i.py"
  done
  git -C "$repo" commit -q -am 'off by one'
  cmd="$CRIT_BIN review code --diff HEAD~1..HEAD --provider anthropic --no-log --json -q --max-chunks 10000 $yes"
  cd "$repo"
  # Checked once: every file reviewed, PASS.
  $cmd --no-cache >"$work/out.json" || true
  python3 - "$work/out.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("coverage") or {}
print(f"{sys.argv[2]} files: verdict {r['verdict']}, parts {c.get('chunks')}, hunks reviewed {c.get('hunks_reviewed')}")
PY
  hyperfine --shell=bash --warmup 1 --runs 5 --export-json "$work/h$n.json" \
    --command-name "$n files, --no-cache" "$cmd --no-cache" \
    --command-name "$n files, empty cache (review, then store every hunk)" \
    --prepare "rm -rf $XDG_CACHE_HOME/crit" "$cmd" \
    --command-name "$n files, full cache (nothing sent)" "$cmd" >/dev/null
  python3 - "$work/h$n.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
for r in rs:
    print(f"  {r['command']}: median {r['median']:.3f} s (min {r['min']:.3f}, max {r['max']:.3f})")
base, cold = rs[0]["median"], rs[1]["median"]
print(f"  the cache's share of a cold run: {max(0.0, cold - base) / cold * 100:.0f}% ({cold / base:.2f}x --no-cache)")
PY
  echo "  cache on disk: $(find "$XDG_CACHE_HOME/crit" -type f | wc -l) files, $(du -sh "$XDG_CACHE_HOME/crit" | cut -f1)"
  cd "$here"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
