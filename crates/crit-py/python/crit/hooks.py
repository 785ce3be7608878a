"""Hooks as Python callables, with the Claude Agent SDK's shape (as Reldo
passes them through): ``{"PreToolUse": [HookMatcher(matcher="Bash",
hooks=[fn])]}``.

A hook is ``fn(input_data, tool_use_id, context)``, plain or ``async def``.
``input_data`` is Claude Code's hook input (``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_response``, ``session_id``, ``cwd``, …);
``context`` holds ``session_id``, ``cwd`` and ``transcript_path``. It returns
``None`` to say nothing, or a dict:

- ``{"decision": "block", "reason": R}``: before a tool, deny it (the model
  reads ``R``); at ``Stop``/``SubagentStop``, send the model back to work;
- ``{"hookSpecificOutput": {"permissionDecision": "deny",
  "permissionDecisionReason": R}}``: deny, as Claude Code's hooks do;
- ``{"hookSpecificOutput": {"updatedInput": {...}}}``: the tool runs with this
  input instead (``PreToolUse``);
- ``{"systemMessage": T}`` or ``{"hookSpecificOutput": {"additionalContext":
  T}}``: ``T`` is added for the model to read;
- ``{"continue": False, "stopReason": R}``: end the review.

In an awaited review hooks run on the caller's event loop (a plain function
there should not block for long); in a blocking one, on a thread of crit's.
A hook that raises is reported and the review goes on as if it had said
nothing (as a failing command hook does). crit's own confinement of the
reviewer's tools holds whatever a hook allows.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["EVENTS", "HookCallback", "HookMatcher"]

EVENTS = ("PreToolUse", "PostToolUse", "SubagentStop", "Stop")

HookCallback = Callable[[Dict[str, Any], Optional[str], Dict[str, Any]], Any]


@dataclass
class HookMatcher:
    """Hooks for one event, optionally only for the tools ``matcher`` names:
    a regex matched against the whole tool name (``"Bash"``, ``"Read|Grep"``);
    ``None``, ``""`` or ``"*"`` match every tool. Only tool events
    (``PreToolUse``, ``PostToolUse``) look at it."""

    matcher: Optional[str] = None
    hooks: List[HookCallback] = field(default_factory=list)
    timeout: Optional[float] = None


HooksArg = Optional[Mapping[str, Sequence[Union[HookMatcher, Mapping[str, Any]]]]]


def _dump(out: Any) -> str:
    if out is None:
        return "{}"
    if not isinstance(out, Mapping):
        raise TypeError(
            f"a hook returns None or a dict, not {type(out).__name__}"
        )
    return json.dumps(out)


async def _finish(awaitable: Any) -> str:
    return _dump(await awaitable)


def _adapter(fn: HookCallback) -> Callable[[str], Any]:
    """What the native side calls: the event as JSON in, the answer as JSON
    out (or an awaitable of it, for an ``async def`` hook)."""

    def call(input_json: str) -> Any:
        data = json.loads(input_json)
        context = {
            "session_id": data.get("session_id"),
            "cwd": data.get("cwd"),
            "transcript_path": data.get("transcript_path"),
            "signal": None,
        }
        out = fn(data, data.get("tool_use_id"), context)
        if hasattr(out, "__await__"):
            return _finish(out)
        return _dump(out)

    return call


def _on_loop(adapter: Callable[[str], Any], input_json: str, reply: Callable[..., None]) -> None:
    """An awaited review runs its hooks on the caller's event loop: called
    there, it starts the hook and hands ``reply`` the answer, or what the
    hook raised."""
    try:
        out = adapter(input_json)
    except Exception as e:  # the review goes on; the error is reported
        reply(None, e)
        return
    if isinstance(out, str):
        reply(out)
        return

    def done(task: "asyncio.Future[str]") -> None:
        if task.cancelled():
            reply(None, asyncio.CancelledError())
        elif task.exception() is not None:
            reply(None, task.exception())
        else:
            reply(task.result())

    asyncio.ensure_future(out).add_done_callback(done)


def _specs(hooks: HooksArg) -> List[Tuple[str, str, Any, str]]:
    """``(event, matcher, adapter, name)`` for each hook, checked."""
    out: List[Tuple[str, str, Any, str]] = []
    for event, matchers in (hooks or {}).items():
        if event not in EVENTS:
            raise ValueError(
                f"hooks: unknown event {event!r}; expected one of {', '.join(EVENTS)}"
            )
        for m in matchers:
            if isinstance(m, Mapping):
                m = HookMatcher(matcher=m.get("matcher"), hooks=list(m.get("hooks", [])))
            for fn in m.hooks:
                if not callable(fn):
                    raise TypeError(f"hooks.{event}: {fn!r} is not callable")
                name = getattr(fn, "__qualname__", None) or repr(fn)
                out.append((event, m.matcher or "", _adapter(fn), name))
    return out
