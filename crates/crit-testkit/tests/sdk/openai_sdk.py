"""Checks that the official `openai` SDK accepts crit-testkit's answers.

Usage: python openai_sdk.py BASE_URL SCENARIO [BASE_URL SCENARIO]...
The Rust test scripts one fake server per scenario first; this file asserts
what the SDK parsed, prints "ok NAME" or "FAIL NAME" and a traceback per
scenario, and exits non-zero when any failed. One process runs them all
because importing the SDK costs seconds.
"""

import json
import sys
import traceback

import openai

client = None
MODEL = "gpt-x"
MSGS = [{"role": "user", "content": "Review this diff"}]
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"file_path": {"type": "string"}}}}}]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def text_nonstream():
    r = client.chat.completions.create(model=MODEL, messages=MSGS)
    c = r.choices[0]
    check(c.message.content == "Hello there" and c.finish_reason == "stop", r)
    check(r.usage.prompt_tokens == 25 and r.usage.completion_tokens == 10, r.usage)


def text_stream_usage():
    chunks = list(client.chat.completions.create(model=MODEL, messages=MSGS, stream=True,
                                                 stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    check(text == "Hello there, streamed", text)
    check(sum(1 for c in chunks if c.choices and c.choices[0].delta.content) > 1, chunks)
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    check(finish == ["length"], finish)
    last = chunks[-1]
    check(last.choices == [] and last.usage is not None, last)
    u = last.usage
    check(u.prompt_tokens == 11 + 33 + 44 and u.completion_tokens == 22, u)
    check(u.prompt_tokens_details.cached_tokens == 44, u)
    check(u.prompt_tokens_details.cache_write_tokens == 33, u)
    check(all(c.usage is None for c in chunks[:-1]), chunks)


def stream_without_usage():
    chunks = list(client.chat.completions.create(model=MODEL, messages=MSGS, stream=True))
    check(all(c.usage is None for c in chunks), chunks)
    check(chunks[-1].choices[0].finish_reason == "stop", chunks[-1])


def tool_calls_stream():
    # The SDK's own accumulator must rebuild the calls from the fragments.
    with client.chat.completions.stream(model=MODEL, messages=MSGS, tools=TOOLS) as s:
        for _ in s:
            pass
        final = s.get_final_completion()
    msg = final.choices[0].message
    calls = msg.tool_calls
    check(len(calls) == 2, calls)
    check(calls[0].function.name == "read_file", calls[0])
    check(json.loads(calls[0].function.arguments) == {"file_path": "a.rs"}, calls[0])
    check(calls[1].function.name == "grep", calls[1])
    check(json.loads(calls[1].function.arguments) == {"pattern": "fn \"main\"", "n": [1, 2]}, calls[1])
    check(calls[0].id.startswith("call_") and calls[0].id != calls[1].id, calls)
    check(final.choices[0].finish_reason == "tool_calls", final)
    # And by hand: id and name only on the first fragment of each index.
    chunks = list(client.chat.completions.create(model=MODEL, messages=MSGS, tools=TOOLS, stream=True))
    seen = {}
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            if tc.index not in seen:
                check(tc.id and tc.function.name, tc)
                seen[tc.index] = ""
            else:
                check(tc.id is None and tc.function.name is None, tc)
            seen[tc.index] += tc.function.arguments or ""
    check({k: json.loads(v) for k, v in seen.items()} ==
          {0: {"file_path": "a.rs"}, 1: {"pattern": "fn \"main\"", "n": [1, 2]}}, seen)


def tool_calls_nonstream():
    r = client.chat.completions.create(model=MODEL, messages=MSGS, tools=TOOLS)
    calls = r.choices[0].message.tool_calls
    check(len(calls) == 1 and json.loads(calls[0].function.arguments) == {"file_path": "a.rs"}, calls)
    check(r.choices[0].finish_reason == "tool_calls", r)


def structured_json():
    fmt = {"type": "json_schema", "json_schema": {"name": "review", "strict": True, "schema": {
        "type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"],
        "additionalProperties": False}}}
    r = client.chat.completions.create(model=MODEL, messages=MSGS, response_format=fmt)
    check(json.loads(r.choices[0].message.content) == {"verdict": "PASS", "n": 2}, r)
    chunks = list(client.chat.completions.create(model=MODEL, messages=MSGS, response_format=fmt, stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    check(json.loads(text) == {"verdict": "PASS", "n": 2}, text)


def http_error():
    try:
        client.chat.completions.create(model=MODEL, messages=MSGS)
    except openai.BadRequestError as e:
        check(e.status_code == 400, e)
        check(e.type == "invalid_request_error" and e.code == "bad_field", (e.type, e.code))
        return
    raise AssertionError("no error raised")


def retry_429():
    r = client.chat.completions.create(model=MODEL, messages=MSGS)
    check(r.choices[0].message.content == "after retry", r)


def stream_error():
    try:
        for _ in client.chat.completions.create(model=MODEL, messages=MSGS, stream=True):
            pass
    except openai.APIError as e:
        check("Overloaded" in e.message, e.message)
        check(e.body["type"] == "overloaded_error", e.body)
        return
    raise AssertionError("no error raised")


failed = 0
args = sys.argv[1:]
for BASE, SCENARIO in zip(args[0::2], args[1::2]):
    client = openai.OpenAI(api_key="sk-test", base_url=BASE + "/v1", max_retries=2, timeout=20)
    try:
        globals()[SCENARIO]()
        print("ok", SCENARIO, flush=True)
    except Exception:
        failed += 1
        print("FAIL", SCENARIO, flush=True)
        traceback.print_exc(file=sys.stdout)
sys.exit(1 if failed else 0)
