#!/usr/bin/env bash
# How crit's work grows with the change: the CPU time (user + system, crit
# and the git it runs) of `crit review code` over N one-line hunks (N files,
# one line edited in each), answered at once by a fake Anthropic server on
# 127.0.0.1, next to the CPU time of `git diff` of the same range, for N =
# 1,000, 4,000 and 16,000 (or the sizes given); then the growth exponent
# from the second size to the last, log(cpu_last/cpu_second) /
# log(N_last/N_second): 1 is linear. Each figure is the median of RUNS runs
# (default 3).
# Needs python3 and git.
# Usage: benches/hunks-cpu.sh [N...]   (CRIT_BIN=path/to/crit for another build)
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 4000 16000)
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
  python3 - "$repo" "$n" <<'PY'
import os, sys
repo, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = f"{repo}/src/m{i // 100}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i}.py", "w") as f:
        f.write(f'def f{i}(x):\n    """Handler {i}."""\n    y = x + 1\n    return y * {i}\n\n\ndef g{i}():\n    return f{i}(1)\n')
PY
  git -C "$repo" add -A
  git -C "$repo" commit -q -m base
  python3 - "$repo" "$n" <<'PY'
import sys
repo, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    p = f"{repo}/src/m{i // 100}/f{i}.py"
    s = open(p).read().replace("y = x + 1", "y = x + 2")
    open(p, "w").write(s)
PY
  git -C "$repo" commit -q -am 'off by one'
done
python3 - "$CRIT_BIN" "$work" "${RUNS:-3}" "${sizes[@]}" <<'PY'
import json, math, resource, statistics, subprocess, sys
crit, work, runs, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4:]]

def cpu(argv, cwd):
    """CPU seconds (user + system) of argv and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p

rows = []
for n in sizes:
    repo = f"{work}/repo{n}"
    review = [crit, "review", "code", "--diff", "HEAD~1..HEAD", "--provider", "anthropic",
              "--no-log", "--json", "-q", "--no-cache", "--yes", "--max-chunks", "100000"]
    diff = ["git", "diff", "HEAD~1..HEAD"]
    c, p = cpu(review, repo)
    r = json.loads(p.stdout)
    cov = r.get("coverage") or {}
    assert cov.get("complete"), cov
    crit_cpu = statistics.median([c] + [cpu(review, repo)[0] for _ in range(runs - 1)])
    git_cpu = statistics.median([cpu(diff, repo)[0] for _ in range(runs)])
    rows.append((n, crit_cpu, git_cpu))
    print(f"{n} hunks ({cov.get('chunks')} parts, verdict {r['verdict']}): crit {crit_cpu:.3f} s CPU, "
          f"git diff {git_cpu:.3f} s CPU, ratio {crit_cpu / git_cpu:.1f}x")
if len(rows) >= 2:
    (n1, c1, g1), (n2, c2, g2) = rows[-2], rows[-1]
    print(f"growth exponent {n1}->{n2}: crit {math.log(c2 / c1) / math.log(n2 / n1):.2f}, "
          f"git diff {math.log(g2 / g1) / math.log(n2 / n1):.2f}")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
