#!/usr/bin/env bash
# The floor of a committed-range review: `crit review code --diff A..B` against
# `git diff A..B` of the same range, in the same run, on a 1,000-file
# repository with 20 files changed (the repository review-fixed-cost.sh builds).
# The crit side is the review's whole path up to the model request, printed
# instead of sent (`--print-prompt`: no backend, no network, nothing cached),
# so the ratio is crit's own fixed cost over git's.
# Also counts the processes each side starts (strace -f, when installed).
# Needs hyperfine, git and python3.
# Usage: benches/range-vs-git-diff.sh [--keep]   (--keep leaves the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  crit=$(cd "$target/release" && pwd)/crit
else
  crit=$CRIT_BIN
fi

work=$(mktemp -d)
trap 'if [ "${1:-}" != "--keep" ]; then rm -rf "$work"; else echo "kept $work"; fi' EXIT
repo=$work/repo
mkdir -p "$repo"
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_BASE_URL CRIT_PROVIDER
mkdir -p "$HOME"
g() { git -C "$repo" "$@"; }

# ~40 lines of Rust; @I@ is the file's number, @IF@/@THEN@ what the edit changes.
read -r -d '' source_tmpl <<'EOF' || true
//! Module @I@: request handling for part @I@.

use std::collections::HashMap;

pub struct Handler@I@ {
    cache: HashMap<u64, String>,
    limit: usize,
}

impl Handler@I@ {
    pub fn new(limit: usize) -> Self {
        Self { cache: HashMap::new(), limit }
    }

    pub fn get(&self, id: u64) -> Option<&str> {
        self.cache.get(&id).map(String::as_str)
    }

    pub fn put(&mut self, id: u64, value: String) -> bool {
        if self.cache.len() @IF@ self.limit {
            @THEN@
        }
        self.cache.insert(id, value);
        true
    }

    pub fn len(&self) -> usize {
        self.cache.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_then_get_@I@() {
        let mut h = Handler@I@::new(2);
        assert!(h.put(1, "a".into()));
        assert_eq!(h.get(1), Some("a"));
    }
}
EOF
source_file() { # i edited
  local s=${source_tmpl//@I@/$1}
  if [ "$2" = 1 ]; then s=${s//@IF@/>}; s=${s//@THEN@/self.cache.clear();}
  else s=${s//@IF@/>=}; s=${s//@THEN@/return false;}; fi
  local p="$repo/src/area$(($1 / 100))/mod$(($1 / 10 % 10))/f$(($1 % 10)).rs"
  mkdir -p "${p%/*}"
  printf '%s\n' "$s" >"$p"
}

g init -q -b main
g config user.name Bench
g config user.email bench@example.com
g config commit.gpgsign false
printf '# Conventions\n\nErrors are returned, never unwrapped.\nEvery public function has a doc comment.\nCaches are bounded and say what happens when full.\n' >"$repo/CLAUDE.md"
mkdir -p "$repo/src/area0" "$repo/.claude/rules"
printf '# Area 0\n\nHandlers here are on the request path: no blocking I/O.\n' >"$repo/src/area0/CLAUDE.md"
rule() { printf -- '---\npaths:\n  - "%s"\n---\n%s\n' "$2" "$3" >"$repo/.claude/rules/$1.md"; }
rule handlers 'src/**/mod*/**' "Handlers check the caller's permission first."
rule area0 'src/area0/**' 'Area 0 logs every rejected request.'
rule tests '**/tests/**' 'Tests name the behaviour, not the function.'
rule docs 'docs/**' 'Docs use sentence case headings.'
rule ci '.github/**' 'Workflows pin actions by commit.'
for i in $(seq 0 999); do source_file "$i" 0; done
g add -A
g commit -q -m base
for k in $(seq 0 19); do source_file $((k * 50 + 7)) 1; done
g commit -q -am 'handlers evict instead of refusing'

review=("$crit" review code --diff HEAD~1..HEAD --print-prompt --no-cache --no-log --json -q)
diff=(git diff HEAD~1..HEAD)
cd "$repo"
"${review[@]}" >"$work/prompt.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r)>=1, r' "$work/prompt.json"
hyperfine --shell=none --warmup 5 --runs "${RUNS:-40}" --export-json "$work/hyperfine.json" \
  --command-name 'git diff A..B' "${diff[*]}" \
  --command-name 'crit review code --diff A..B --print-prompt' "${review[*]}" >/dev/null
python3 - "$work/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
git, crit = r["git diff A..B"], r["crit review code --diff A..B --print-prompt"]
for name, x in (("git diff", git), ("crit review --print-prompt", crit)):
    print(f"{name}: median {x['median'] * 1000:.1f} ms, mean {x['mean'] * 1000:.1f} ms "
          f"(user {x['user'] * 1000:.1f} ms, system {x['system'] * 1000:.1f} ms)")
print(f"ratio (median): {crit['median'] / git['median']:.2f}x")
PY
if command -v strace >/dev/null; then
  for side in review diff; do
    eval "cmd=(\"\${${side}[@]}\")"
    n=$(strace -f -e trace=execve -o "$work/strace.$side" "${cmd[@]}" >/dev/null 2>&1; grep -c 'execve(' "$work/strace.$side" || true)
    echo "processes started ($side): $n"
  done
fi
