#!/usr/bin/env bash
# Fixed cost of `crit review code` end to end (budget: < 50 ms, < 40 MB peak;
# see CONTRIBUTING.md): the release binary reviewing a 20-file range of a 1,000-file
# repository, answered from a cassette so the model costs nothing.
#
# The cassette is recorded once with `--record` against a tiny fake Anthropic
# server on 127.0.0.1 (python3, below), then every timed run uses
# `--provider replay`. Needs hyperfine, python3, git and GNU time.
# The in-process parts are in crates/crit-review/benches/review_fixed_cost.rs.
# Usage: benches/review-fixed-cost.sh [--keep]   (--keep leaves the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
cargo build --release -p crit-cli --bin crit --quiet
crit=$(cd "$target/release" && pwd)/crit

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  if [ "${1:-}" != "--keep" ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap 'cleanup "${1:-}"' EXIT
repo=$work/repo
mkdir -p "$repo"

# Git as the tests run it: no system or user config, fixed dates.
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_STATE_HOME=$work/state
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
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

# Record: a fake Anthropic server answering every request at once with the
# findings as a StructuredOutput tool call over SSE.
cat >"$work/fake_anthropic.py" <<'EOF'
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = {"verdict": "FAIL", "summary": "A full cache now drops every entry.", "findings": [{
    "file_path": "src/area0/mod0/f7.rs", "line_start": 20, "line_end": 21, "priority": 1,
    "title": "[P1] A full cache is cleared instead of refusing the write",
    "body": "Every entry is lost at the limit; callers relied on `false`."}]}

def sse(kind, data):
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = "".join([
            sse("message_start", {"type": "message_start", "message": {
                "id": "msg_bench", "type": "message", "role": "assistant",
                "model": "claude-opus-5-5", "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": {"input_tokens": 3000, "output_tokens": 1}}}),
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_bench",
                                  "name": "StructuredOutput", "input": {}}}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(ANSWER)}}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 200}}),
            sse("message_stop", {"type": "message_stop"}),
        ]).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF
python3 "$work/fake_anthropic.py" >"$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
cassettes=$work/cassettes
export ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL=http://127.0.0.1:$port
(cd "$repo" && "$crit" review code --diff HEAD~1..HEAD --record "$cassettes" --no-log --json -q >"$work/recorded.json")

# Replay once, checked, before timing: a cassette that does not match would
# time the error path.
cmd=("$crit" review code --diff HEAD~1..HEAD --provider replay --cassettes "$cassettes" --no-log --json)
(cd "$repo" && "${cmd[@]}" -q >"$work/replayed.json")
grep -q '"verdict": *"FAIL"' "$work/replayed.json" || {
  echo "replay did not give the recorded answer:" >&2
  cat "$work/replayed.json" >&2
  exit 1
}
echo "cassettes: $(ls "$cassettes" | wc -l) in $cassettes"

# The same review over loopback HTTP + SSE (the python server's own time,
# about a millisecond, is in this number).
http=("$crit" review code --diff HEAD~1..HEAD --provider anthropic --no-log --json)
cd "$repo"
hyperfine --shell=none --warmup 5 --runs 30 --export-json "$work/hyperfine.json" \
  --command-name 'review, --no-log' "${cmd[*]}" \
  --command-name 'review, session log and audit' "${cmd[*]/--no-log/-q}" \
  --command-name 'review, --no-log, HTTP to the python fake server' "${http[*]}"
python3 - "$work/hyperfine.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']}: median {r['median'] * 1000:.1f} ms, "
          f"min {r['min'] * 1000:.1f} ms, max {r['max'] * 1000:.1f} ms")
EOF
rss=$(/usr/bin/env time -f '%M' "${cmd[@]}" 2>&1 >/dev/null | tail -1)
echo "peak RSS, --no-log: ${rss} KB"
logged=("${cmd[@]/--no-log/-q}")
rss=$(/usr/bin/env time -f '%M' "${logged[@]}" 2>&1 >/dev/null | tail -1)
echo "peak RSS, with the session log: ${rss} KB"
rss=$(/usr/bin/env time -f '%M' "${http[@]}" 2>&1 >/dev/null | tail -1)
echo "peak RSS, over HTTP: ${rss} KB"
# Each git call is one debug line (crit-os's git runner).
calls=$("${cmd[@]}" -vv 2>&1 >/dev/null | sed 's/\x1b\[[0-9;]*m//g' | grep -c ' git args=' || true)
echo "git processes per review: $calls"

# The same git commands alone: a `git` first on PATH logs each run crit makes
# (its environment and arguments) as a command line; the script of those
# lines, run one after another, is timed beside the review.
real_git=$(command -v git)
mkdir -p "$work/gitlog"
cat >"$work/gitlog/git" <<WRAP
#!/usr/bin/env bash
{
  printf 'env -i '
  for v in PATH HOME XDG_CONFIG_HOME LC_ALL PAGER \$(compgen -e | grep '^GIT_'); do
    printf '%q ' "\$v=\${!v}"
  done
  printf '%q ' "$real_git" "\$@"
  printf '</dev/null >/dev/null 2>&1\n'
} >>"$work/git-alone.sh"
exec "$real_git" "\$@"
WRAP
chmod +x "$work/gitlog/git"
: >"$work/git-alone.sh"
PATH="$work/gitlog:$PATH" "${cmd[@]}" -q >/dev/null
echo "git commands of one review: $(wc -l <"$work/git-alone.sh")"
hyperfine --shell=none --warmup 5 --runs 30 --export-json "$work/git-alone.json" \
  --command-name 'review, --no-log' "${cmd[*]}" \
  --command-name "the review's git commands alone, one after another" "bash $work/git-alone.sh" \
  --command-name 'bash alone (in the line above)' "bash -c true"
python3 - "$work/git-alone.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
for r in rs:
    print(f"{r['command']}: median {r['median'] * 1000:.1f} ms")
review, git, bash = (r["median"] for r in rs)
print(f"git alone (less bash): {(git - bash) * 1000:.1f} ms, "
      f"{(git - bash) / review * 100:.0f}% of the review")
PY
