"""Checks that the official `anthropic` SDK accepts crit-testkit's answers.

Usage: python anthropic_sdk.py BASE_URL SCENARIO [BASE_URL SCENARIO]...
The Rust test scripts one fake server per scenario first; this file asserts
what the SDK parsed, prints "ok NAME" or "FAIL NAME" and a traceback per
scenario, and exits non-zero when any failed. One process runs them all
because importing the SDK costs seconds.
"""

import json
import sys
import traceback

import anthropic

client = None
MODEL = "claude-opus-5-5"
MSGS = [{"role": "user", "content": "Review this diff"}]
READ_TOOL = {
    "name": "Read",
    "description": "Read a file",
    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def text_nonstream():
    m = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS)
    check(m.content[0].type == "text" and m.content[0].text == "Hello there", m)
    check(m.stop_reason == "end_turn", m.stop_reason)
    check(m.role == "assistant" and m.model == MODEL, m)
    check(m.usage.input_tokens == 25 and m.usage.output_tokens == 10, m.usage)


def text_stream():
    pieces = []
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as s:
        for t in s.text_stream:
            pieces.append(t)
        m = s.get_final_message()
    check(len(pieces) > 1, pieces)
    check("".join(pieces) == "Hello there, streamed", pieces)
    check(m.content[0].text == "Hello there, streamed", m)
    check(m.stop_reason == "end_turn", m.stop_reason)


def raw_stream_events():
    # The low-level stream: event types in order, pings dropped by the SDK.
    kinds = [e.type for e in client.messages.create(model=MODEL, max_tokens=100, messages=MSGS, stream=True)]
    check(kinds[0] == "message_start" and kinds[-1] == "message_stop", kinds)
    check(kinds[-2] == "message_delta", kinds)
    check("content_block_start" in kinds and "content_block_stop" in kinds, kinds)


def tool_use_stream():
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS, tools=[READ_TOOL]) as s:
        json_events = [e for e in s if e.type == "input_json"]
        m = s.get_final_message()
    check(len(json_events) >= 2, json_events)
    tools = [b for b in m.content if b.type == "tool_use"]
    check(len(tools) == 2, m.content)
    check(tools[0].name == "Read" and tools[0].input == {"file_path": "a.rs"}, tools[0])
    check(tools[1].name == "Grep" and tools[1].input == {"pattern": "fn \"main\"", "n": [1, 2]}, tools[1])
    check(tools[0].id.startswith("toolu_") and tools[0].id != tools[1].id, tools)
    check(m.stop_reason == "tool_use", m.stop_reason)


def tool_use_nonstream():
    m = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS, tools=[READ_TOOL])
    check([b.type for b in m.content] == ["text", "tool_use"], m.content)
    check(m.content[1].input == {"file_path": "a.rs"}, m.content[1])
    check(m.stop_reason == "tool_use", m.stop_reason)


def thinking_stream():
    with client.messages.stream(model=MODEL, max_tokens=2000, messages=MSGS,
                                thinking={"type": "enabled", "budget_tokens": 1024}) as s:
        m = s.get_final_message()
    check(m.content[0].type == "thinking" and m.content[0].thinking == "Let me think about it.", m.content)
    check(m.content[0].signature, m.content[0])
    check(m.content[1].type == "text" and m.content[1].text == "Done.", m.content)


def structured_json():
    fmt = {"type": "json_schema", "schema": {"type": "object", "properties": {"verdict": {"type": "string"}},
                                              "required": ["verdict"], "additionalProperties": False}}
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS, output_config={"format": fmt}) as s:
        m = s.get_final_message()
    check(json.loads(m.content[0].text) == {"verdict": "PASS", "n": 2}, m.content)
    m = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS, output_config={"format": fmt})
    check(json.loads(m.content[0].text) == {"verdict": "PASS", "n": 2}, m.content)


def structured_tool():
    tool = {"name": "StructuredOutput", "description": "final answer",
            "input_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS, tools=[tool]) as s:
        m = s.get_final_message()
    check(m.content[0].type == "tool_use" and m.content[0].name == "StructuredOutput", m.content)
    check(m.content[0].input == {"ok": True}, m.content[0])


def usage_cache():
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as s:
        m = s.get_final_message()
    u = m.usage
    check((u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
          == (11, 22, 33, 44), u)
    m = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS)
    u = m.usage
    check((u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
          == (11, 22, 33, 44), u)
    check(m.stop_reason == "max_tokens", m.stop_reason)


def retry_429():
    m = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS)
    check(m.content[0].text == "after retry", m)


def stream_error():
    try:
        with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as s:
            for _ in s:
                pass
    except anthropic.APIStatusError as e:
        check("overloaded_error" in str(e) and "Overloaded" in str(e), str(e))
        return
    raise AssertionError("no error raised")


def http_error():
    try:
        client.messages.create(model=MODEL, max_tokens=100, messages=MSGS)
    except anthropic.BadRequestError as e:
        check(e.status_code == 400, e)
        check(e.body["error"]["type"] == "invalid_request_error", e.body)
        check(e.body["error"]["message"] == "bad field", e.body)
        return
    raise AssertionError("no error raised")


def exhausted():
    try:
        client.messages.create(model=MODEL, max_tokens=100, messages=MSGS)
    except anthropic.InternalServerError as e:
        check("no scripted step left" in str(e), str(e))
        return
    raise AssertionError("no error raised")


def dropped():
    try:
        with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as s:
            for _ in s:
                pass
    except anthropic.APIConnectionError:
        return
    except Exception as e:  # the SDK lets httpx's own error through mid-stream
        check("incomplete chunked read" in str(e), repr(e))
        return
    raise AssertionError("no error raised")


failed = 0
args = sys.argv[1:]
for BASE, SCENARIO in zip(args[0::2], args[1::2]):
    client = anthropic.Anthropic(api_key="sk-test", base_url=BASE, max_retries=2, timeout=20)
    try:
        globals()[SCENARIO]()
        print("ok", SCENARIO, flush=True)
    except Exception:
        failed += 1
        print("FAIL", SCENARIO, flush=True)
        traceback.print_exc(file=sys.stdout)
sys.exit(1 if failed else 0)
