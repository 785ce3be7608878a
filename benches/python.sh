#!/usr/bin/env bash
# What crit costs a Python host: `import crit` (time, peak memory) next to
# `import reldo` and `import claude_agent_sdk`, then one review's fixed cost
# from Python (benches/python-review-cost.py). Needs hyperfine and GNU time.
#
#   benches/python.sh VENV_WITH_CRIT [VENV_WITH_RELDO_AND_SDK]
#
# Install crit into VENV_WITH_CRIT first: VENV_WITH_CRIT/bin/pip install . (an
# optimized build from this checkout). The second venv has
# `pip install reldo claude-agent-sdk`.
set -euo pipefail
cd "$(dirname "$0")/.."
crit_py="$1/bin/python"
other_py="${2:+$2/bin/python}"
target=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p crit-testkit --bin crit-fake-server

cmds=("$crit_py -c 'import crit'" "$crit_py -c 'import crit.compat.reldo, crit.compat.mala'" "$crit_py -c pass")
if [ -n "$other_py" ]; then
    cmds+=("$other_py -c 'import reldo'" "$other_py -c 'import claude_agent_sdk'")
fi
hyperfine -N --warmup 3 --runs 30 "${cmds[@]}"

echo "peak RSS (MB):"
for c in "${cmds[@]}"; do
    kb=$(eval "/usr/bin/time -f %M $c" 2>&1 >/dev/null | tail -1)
    printf '  %6.1f  %s\n' "$(echo "$kb / 1024" | bc -l)" "$c"
done

CRIT_FAKE_SERVER="$target/release/crit-fake-server" "$crit_py" benches/python-review-cost.py
