"""A fake Anthropic Messages server for crit's benches, on 127.0.0.1.

Every request is answered after DELAY seconds with a PASS and no findings,
as a StructuredOutput tool call over SSE, with the usage a real answer would
carry (input tokens estimated at a token per four bytes of the request).
GET /stats answers {"requests": N, "max_in_flight": M, "first_request_at": T}
(T: the Unix time the first request arrived, 0 before) and POST /reset
clears them. Rate limits can be simulated: with LIMIT > 0 the server answers
anthropic-ratelimit-requests-remaining as LIMIT minus the requests in flight,
and a 429 with retry-after when more than LIMIT are in flight.

Usage: python3 fake_anthropic.py DELAY [LIMIT]   (prints the port)
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELAY = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
LIMIT = int(sys.argv[2]) if len(sys.argv) > 2 else 0
ANSWER = {"verdict": "PASS", "summary": "Nothing to report.", "findings": []}
lock = threading.Lock()
stats = {"requests": 0, "in_flight": 0, "max_in_flight": 0, "rejected": 0, "input_bytes": 0,
         "first_request_at": 0}


def sse(kind, data):
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        with lock:
            body = json.dumps(stats).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path.startswith("/reset"):
            with lock:
                for k in stats:
                    stats[k] = 0
            self.send_response(204)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        with lock:
            if not stats["first_request_at"]:
                stats["first_request_at"] = time.time()
            stats["requests"] += 1
            stats["input_bytes"] += len(raw)
            stats["in_flight"] += 1
            stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
            over = LIMIT > 0 and stats["in_flight"] > LIMIT
            remaining = max(0, LIMIT - stats["in_flight"]) if LIMIT > 0 else None
            if over:
                stats["rejected"] += 1
        try:
            if over:
                body = json.dumps({"type": "error", "error": {
                    "type": "rate_limit_error", "message": "too many requests"}}).encode()
                self.send_response(429)
                self.send_header("retry-after", "1")
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            time.sleep(DELAY)
            model = "claude-sonnet-5-5"
            try:
                model = json.loads(raw).get("model", model)
            except ValueError:
                pass
            body = "".join([
                sse("message_start", {"type": "message_start", "message": {
                    "id": "msg_bench", "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": len(raw) // 4, "output_tokens": 1}}}),
                sse("content_block_start", {"type": "content_block_start", "index": 0,
                    "content_block": {"type": "tool_use", "id": "toolu_bench",
                                      "name": "StructuredOutput", "input": {}}}),
                sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(ANSWER)}}),
                sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                sse("message_delta", {"type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 60}}),
                sse("message_stop", {"type": "message_stop"}),
            ]).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            if remaining is not None:
                self.send_header("anthropic-ratelimit-requests-limit", str(LIMIT))
                self.send_header("anthropic-ratelimit-requests-remaining", str(remaining))
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        finally:
            with lock:
                stats["in_flight"] -= 1

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
