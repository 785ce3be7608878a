#!/usr/bin/env bash
# Cold start of `crit --version` and `crit review list` (budget: < 10 ms, < 15 MB; see
# CONTRIBUTING.md), and re-rendering a saved result as SARIF.
# Needs hyperfine (apt-get install hyperfine). Usage: benches/cold-start.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p crit-cli --quiet
bin=${CARGO_TARGET_DIR:-target}/release/crit
hyperfine --shell=none --warmup 50 --runs 500 "$bin --version" "$bin review list" "$bin report examples/review-result.json --format sarif --out /dev/null"
for args in "--version" "review list" "report examples/review-result.json --format sarif --out /dev/null"; do
  # shellcheck disable=SC2086
  rss=$(/usr/bin/env time -f '%M' $bin $args 2>&1 >/dev/null | tail -1)
  echo "peak RSS of crit $args: ${rss} KB"
done
