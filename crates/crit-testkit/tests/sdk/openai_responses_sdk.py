"""Checks that the official `openai` SDK accepts crit-testkit's Responses API
answers (`POST /v1/responses`, the API Codex CLI speaks).

Usage: python openai_responses_sdk.py BASE_URL SCENARIO [BASE_URL SCENARIO]...
As openai_sdk.py: prints "ok NAME" or "FAIL NAME" and a traceback per
scenario, and exits non-zero when any failed.
"""

import json
import sys
import traceback

import openai

client = None
MODEL = "gpt-x"
TOOLS = [{"type": "function", "name": "read_file", "parameters": {
    "type": "object", "properties": {"file_path": {"type": "string"}}}}]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def events_in_order(events):
    types = [e.type for e in events]
    check(types[:2] == ["response.created", "response.in_progress"], types)
    check([e.sequence_number for e in events] == list(range(len(events))), types)
    return types


def text_nonstream():
    r = client.responses.create(model=MODEL, input="Review this diff")
    check(r.output_text == "Hello there" and r.status == "completed", r)
    check(r.usage.input_tokens == 25 and r.usage.output_tokens == 10, r.usage)
    check(r.output[0].type == "message" and r.output[0].role == "assistant", r.output)


def text_stream():
    with client.responses.stream(model=MODEL, input="Review this diff") as s:
        events = list(s)
        final = s.get_final_response()
    types = events_in_order(events)
    check(types[-1] == "response.completed", types)
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    check(len(deltas) > 1 and "".join(deltas) == "Hello there, streamed", deltas)
    check(final.output_text == "Hello there, streamed", final)
    u = final.usage
    check(u.input_tokens == 11 + 33 + 44 and u.output_tokens == 22, u)
    check(u.input_tokens_details.cached_tokens == 44, u)


def tool_calls_stream():
    with client.responses.stream(model=MODEL, input="Review", tools=TOOLS) as s:
        events = list(s)
        final = s.get_final_response()
    events_in_order(events)
    calls = [o for o in final.output if o.type == "function_call"]
    check(len(calls) == 2, final.output)
    check(calls[0].name == "read_file" and json.loads(calls[0].arguments) == {"file_path": "a.rs"}, calls[0])
    check(calls[1].name == "grep" and json.loads(calls[1].arguments) == {"pattern": "fn \"main\"", "n": [1, 2]}, calls[1])
    check(calls[0].call_id != calls[1].call_id and calls[0].status == "completed", calls)
    done = [e.arguments for e in events if e.type == "response.function_call_arguments.done"]
    check([json.loads(a) for a in done] == [json.loads(c.arguments) for c in calls], done)


def reasoning_stream():
    with client.responses.stream(model=MODEL, input="Think") as s:
        events = list(s)
        final = s.get_final_response()
    events_in_order(events)
    check(final.output[0].type == "reasoning", final.output)
    check(final.output[0].summary[0].text == "Let me think.", final.output[0])
    check(final.output_text == "Answer.", final)


def http_error():
    try:
        client.responses.create(model=MODEL, input="x")
    except openai.BadRequestError as e:
        check(e.status_code == 400 and e.type == "invalid_request_error", e)
        return
    raise AssertionError("no error raised")


def stream_failed():
    events = list(client.responses.create(model=MODEL, input="x", stream=True))
    events_in_order(events)
    last = events[-1]
    check(last.type == "response.failed", last)
    check(last.response.status == "failed" and last.response.error.code == "server_error", last)
    check(last.response.error.message == "Overloaded", last)


failed = 0
args = sys.argv[1:]
for BASE, SCENARIO in zip(args[0::2], args[1::2]):
    client = openai.OpenAI(api_key="sk-test", base_url=BASE + "/v1", max_retries=0, timeout=20)
    try:
        globals()[SCENARIO]()
        print("ok", SCENARIO, flush=True)
    except Exception:
        failed += 1
        print("FAIL", SCENARIO, flush=True)
        traceback.print_exc(file=sys.stdout)
sys.exit(1 if failed else 0)
