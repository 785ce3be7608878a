#!/usr/bin/env bash
# The fixed cost of one review in a tiny repository (one file, one commit
# changing it), crit against Reldo: `crit review code` answered from a
# cassette, Reldo (the Claude Agent SDK and its bundled Claude Code CLI)
# answered by a local fake Anthropic server that replies PASS at once. Both
# sides do all their own work but the model's. Needs hyperfine, python3, git.
#
#   benches/reldo-fixed-cost.sh VENV_WITH_RELDO   (python3 -m venv V && V/bin/pip install reldo)
#   CRIT_BIN=path/to/crit compares another build (default: this tree's release build).
set -euo pipefail
cd "$(dirname "$0")/.."
reldo="$1/bin/reldo"
if [ -z "${CRIT_BIN:-}" ]; then
  cargo build --release -p crit-cli --bin crit --quiet
  CRIT_BIN=$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/crit
fi
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/home XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
# The Claude Code CLI refuses to skip permissions as root outside a sandbox.
export IS_SANDBOX=1
mkdir -p "$HOME" "$work/repo"
cd "$work/repo"
git init -q -b main
git config user.name Bench
git config user.email bench@example.com
printf 'fn a() {}\n' >a.rs
git add -A
git commit -q -m base
printf 'fn a() { x.unwrap(); }\n' >a.rs
git commit -q -am edit

# Two fakes: crit's (a StructuredOutput answer) to record its cassette, and
# one that answers in text, as the CLI expects of a plain model.
python3 "$OLDPWD/benches/support/fake_anthropic.py" 0 >"$work/port" &
pids+=($!)
cat >"$work/fake_text.py" <<'PY'
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

def sse(kind, data):
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            req = json.loads(raw)
        except ValueError:
            req = {}
        model = req.get("model", "claude-sonnet-4-5")
        msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
               "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 8}}
        if "count_tokens" in self.path:
            body, ctype = json.dumps({"input_tokens": 100}).encode(), "application/json"
        elif req.get("stream"):
            body = "".join([
                sse("message_start", {"type": "message_start",
                    "message": {**msg, "content": [], "stop_reason": None}}),
                sse("content_block_start", {"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}}),
                sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": "STATUS: PASS"}}),
                sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                sse("message_delta", {"type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 8}}),
                sse("message_stop", {"type": "message_stop"}),
            ]).encode()
            ctype = "text/event-stream"
        else:
            body = json.dumps({**msg, "content": [{"type": "text", "text": "STATUS: PASS"}],
                               "stop_reason": "end_turn"}).encode()
            ctype = "application/json"
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/fake_text.py" >"$work/port_text" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/port" ] && [ -s "$work/port_text" ] && break; sleep 0.1; done

export ANTHROPIC_API_KEY=sk-ant-bench
ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$work/port") \
  "$CRIT_BIN" review code --diff HEAD~1..HEAD --record "$work/cassettes" --no-log --json -q >/dev/null
export ANTHROPIC_BASE_URL=http://127.0.0.1:$(cat "$work/port_text")
"$reldo" init >/dev/null
"$reldo" review 'Review the last commit' --no-log --json >"$work/reldo.json"
grep -q '"error"' "$work/reldo.json" && { cat "$work/reldo.json" >&2; exit 1; }

hyperfine -N --warmup 2 --runs 10 --export-json "$work/h.json" \
  --command-name reldo "$reldo review 'Review the last commit' --no-log --json" \
  --command-name crit "$CRIT_BIN review code --diff HEAD~1..HEAD --provider replay --cassettes $work/cassettes --no-log --json" >/dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
rs = {r["command"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
print(f"reldo: median {rs['reldo'] * 1000:.1f} ms; crit: median {rs['crit'] * 1000:.1f} ms; "
      f"crit / reldo = {rs['crit'] / rs['reldo']:.4f}")
PY
