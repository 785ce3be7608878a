"""Reldo's library through ``crit.compat.reldo``: the user story and FR8's
example prompts, FR9's hooks, as Reldo's documentation writes them, with
only the import line changed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from crit.compat.reldo import HookMatcher, Reldo, ReviewConfig, ReviewResult

from conftest import system_text, user_text, write

# FR8's example prompts, verbatim.
ORCHESTRATOR = """# Code Review Orchestrator

<role>
You coordinate code reviews by delegating to specialized reviewer agents.
You analyze files, invoke the appropriate reviewers in parallel, aggregate
their results, and return a structured result with overall pass/fail status,
per-reviewer outcomes, and combined violations.
</role>

<instructions>
1. Analyze the provided files to determine which reviewers apply:
   - `*.php` (not in e2e/) → backend-reviewer
   - `*.vue`, `*.ts`, `*.tsx` (not in e2e/) → frontend-reviewer
   - All code files → architecture-reviewer

2. Invoke appropriate reviewers using the Task tool:
   - Run reviewers in PARALLEL (multiple Task calls in one message)
   - Pass the relevant files to each reviewer

3. Aggregate results:
   - PASS only if ALL reviewers pass
   - Collect all violations from all reviewers
   - Return the combined result
</instructions>
"""

BACKEND = """# Backend Reviewer

<role>
You review PHP/Laravel code for compliance with backend conventions.
You read project rules, run linters, check code against conventions, and
report violations with file paths and line numbers. Return STATUS: PASS
if no issues, STATUS: FAIL with violations list if issues found.
</role>

<instructions>
1. Read relevant rules from `.claude/rules/techstack/backend/`
2. Run `lint:php` on the files to catch type errors
3. Check code against the rules you read
4. Report any violations found
</instructions>
"""

FRONTEND = "# Frontend Reviewer\n\n<role>You review Vue/TypeScript code.</role>\n"
ARCHITECTURE = "# Architecture Reviewer\n\n<role>You review architectural patterns.</role>\n"

OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "passed": {"type": "boolean"},
        "reviewers": {"type": "object", "additionalProperties": {"type": "boolean"}},
        "violations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "file": {"type": "string"},
                    "line": {"type": "number"},
                    "message": {"type": "string"},
                    "reviewer": {"type": "string"},
                },
            },
        },
    },
    "required": ["passed"],
}


def reldo_config() -> Dict[str, Any]:
    """FR4's `.claude/reldo.json` (without its MCP server, which needs uvx)."""
    return {
        "prompt": ".claude/reldo/orchestrator.md",
        "allowed_tools": ["Read", "Glob", "Grep", "Bash", "Task"],
        "agents": {
            "backend-reviewer": {
                "description": "Reviews PHP/Laravel code for conventions and patterns",
                "prompt": ".claude/reldo/agents/backend-reviewer.md",
                "tools": ["Read", "Glob", "Grep", "Bash"],
            },
            "frontend-reviewer": {
                "description": "Reviews Vue/TypeScript code for conventions and patterns",
                "prompt": ".claude/reldo/agents/frontend-reviewer.md",
                "tools": ["Read", "Glob", "Grep", "Bash"],
            },
            "architecture-reviewer": {
                "description": "Reviews code for architectural patterns and cross-cutting concerns",
                "prompt": ".claude/reldo/agents/architecture-reviewer.md",
                "tools": ["Read", "Glob", "Grep"],
            },
        },
        "output_schema": OUTPUT_SCHEMA,
        "cwd": "${cwd}",
        "timeout_seconds": 180,
        "model": "claude-sonnet-4-20250514",
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "app"
    write(d, "app/Models/User.php", "<?php\nclass User { public $password; }\n")
    write(d, "app/Models/Safe.php", "<?php\n// SAFE-CONTENT\n")
    write(d, "resources/js/Pages/Login.vue", "<template><form/></template>\n")
    write(d, ".claude/reldo/orchestrator.md", ORCHESTRATOR)
    write(d, ".claude/reldo/agents/backend-reviewer.md", BACKEND)
    write(d, ".claude/reldo/agents/frontend-reviewer.md", FRONTEND)
    write(d, ".claude/reldo/agents/architecture-reviewer.md", ARCHITECTURE)
    write(d, ".claude/reldo.json", json.dumps(reldo_config(), indent=2))
    monkeypatch.chdir(d)
    return d


def task(kind: str, prompt: str) -> Dict[str, Any]:
    return {"name": "Task", "input": {"description": f"{kind} review", "prompt": prompt, "subagent_type": kind}}


VERDICT = {
    "passed": False,
    "reviewers": {"backend-reviewer": False, "frontend-reviewer": True, "architecture-reviewer": True},
    "violations": [
        {"file": "app/Models/User.php", "line": 2, "message": "password is public", "reviewer": "backend-reviewer"}
    ],
}


class SubagentStopResponse:
    """The host's own hook response (claude-hook-utils in Reldo's story)."""

    def __init__(self, decision: str, reason: str) -> None:
        self.decision, self.reason = decision, reason

    @classmethod
    def block(cls, reason: str) -> "SubagentStopResponse":
        return cls("block", reason)


def user_story(server) -> None:
    """The user story's answers: the orchestrator delegates to its three
    sub-agents in one turn (FR8's prompts route by file), then answers in
    its output_schema."""
    files = "app/Models/User.php and resources/js/Pages/Login.vue"
    server.push(
        {
            "when_contains": "# Code Review Orchestrator",
            "reply": {
                "tool_uses": [
                    task("backend-reviewer", "Review app/Models/User.php"),
                    task("frontend-reviewer", "Review resources/js/Pages/Login.vue"),
                    task("architecture-reviewer", f"Review {files}"),
                ],
                "usage": [1000, 100, 0, 0],
            },
        },
        {"when_contains": "# Backend Reviewer", "reply": {"text": "STATUS: FAIL\n- app/Models/User.php:2 password is public", "usage": [400, 40, 0, 0]}},
        {"when_contains": "# Frontend Reviewer", "reply": {"text": "STATUS: PASS", "usage": [300, 30, 0, 0]}},
        {"when_contains": "# Architecture Reviewer", "reply": {"text": "STATUS: PASS", "usage": [200, 20, 0, 0]}},
        {"when_contains": "# Code Review Orchestrator", "reply": {"json": VERDICT, "usage": [2000, 80, 0, 0]}},
    )


def test_the_user_story_and_fr8s_prompts(server, project: Path) -> None:
    user_story(server)

    async def on_subagent_stop():
        # Reldo's user story, verbatim but for the import.
        config = ReviewConfig.from_file(Path(".claude/reldo.json"))
        reldo = Reldo(config=config)

        # Single prompt argument - caller constructs the request
        result = await reldo.review(
            prompt="Review app/Models/User.php and resources/js/Pages/Login.vue. Context: Added user registration."
        )

        if not result.structured_output["passed"]:
            return SubagentStopResponse.block(result.text), result
        return None, result

    response, result = asyncio.run(on_subagent_stop())
    assert isinstance(result, ReviewResult)
    assert response is not None and response.decision == "block"
    assert response.reason == result.text and result.text
    assert result.structured_output == VERDICT
    assert result.input_tokens == 1000 + 400 + 300 + 200 + 2000
    assert result.output_tokens == 100 + 40 + 30 + 20 + 80
    assert result.total_tokens == result.input_tokens + result.output_tokens
    assert isinstance(result.total_cost_usd, float)
    assert isinstance(result.duration_ms, int) and result.duration_ms >= 0
    assert result.result is not None and result.result.passed is False
    # Reldo's result says whether the review passed, as crit's gate decided.
    assert result.passed is False
    names = [r.name for r in result.result.reviewers]
    assert names[0] == "orchestrator"
    assert sorted(names[1:]) == ["architecture-reviewer", "backend-reviewer", "frontend-reviewer"]

    reqs = server.requests()
    assert reqs[0]["body"]["model"] == "claude-sonnet-4-20250514"
    assert ORCHESTRATOR.strip() in system_text(reqs[0])
    backend = [r for r in reqs if "# Backend Reviewer" in system_text(r)]
    assert len(backend) == 1 and BACKEND.strip() in system_text(backend[0])


def test_a_programmatic_config(server, project: Path) -> None:
    server.push({"json": {"passed": True}})
    config = ReviewConfig(
        prompt=".claude/reldo/orchestrator.md",
        allowed_tools=["Read", "Glob", "Grep"],
        output_schema=OUTPUT_SCHEMA,
        cwd=project,
        timeout_seconds=180,
    )
    result = asyncio.run(Reldo(config=config).review(prompt="Review app/Models/User.php"))
    assert result.structured_output == {"passed": True}
    assert result.passed is True and result.passed == result.result.passed
    [req] = server.requests()
    assert ORCHESTRATOR.strip() in system_text(req)


audit_log: List[Dict[str, Any]] = []


async def send_to_audit_service(input_data):
    audit_log.append(input_data)


def test_fr9_hooks_block_a_dangerous_command_and_audit_the_rest(server, project: Path) -> None:
    audit_log.clear()
    server.push(
        {"tool_use": {"name": "Bash", "input": {"command": "rm -rf app"}}},
        {"tool_use": {"name": "Read", "input": {"file_path": "app/Models/User.php"}}},
        {"json": {"passed": True}},
    )

    async def main():
        # FR9's library usage, verbatim but for the import.
        async def audit_logger(input_data, tool_use_id, context):
            """Log all tool calls to external system."""
            await send_to_audit_service(input_data)
            return None

        async def block_dangerous_commands(input_data, tool_use_id, context):
            """Block rm -rf and similar."""
            if input_data.get("tool_name") == "Bash":
                command = input_data.get("tool_input", {}).get("command", "")
                if "rm -rf" in command:
                    return {"decision": "block", "reason": "Dangerous command blocked"}
            return None

        config = ReviewConfig.from_file(Path(".claude/reldo.json"))
        reldo = Reldo(
            config=config,
            hooks={
                "PreToolUse": [
                    HookMatcher(
                        matcher="Bash",  # Only for Bash tool
                        hooks=[block_dangerous_commands]
                    )
                ],
                "PostToolUse": [
                    HookMatcher(hooks=[audit_logger])  # All tools
                ]
            }
        )

        result = await reldo.review(prompt="Review app/Models/User.php")
        return result

    result = asyncio.run(main())
    assert result.structured_output == {"passed": True}
    reqs = server.requests()
    assert "PreToolUse:Bash hook error: Dangerous command blocked" in user_text(reqs[1])
    assert (project / "app").is_dir()
    # The blocked call never ran, so only the Read was audited.
    assert [e["tool_name"] for e in audit_log] == ["Read"]
    entry = audit_log[0]
    assert entry["hook_event_name"] == "PostToolUse"
    assert entry["tool_input"] == {"file_path": "app/Models/User.php"}
    assert "class User" in entry["tool_response"]
    assert entry["tool_use_id"]


def test_fr9_hooks_rewrite_input_and_add_a_system_message(server, project: Path) -> None:
    server.push(
        {"tool_use": {"name": "Read", "input": {"file_path": "app/Models/User.php"}}},
        {"json": {"passed": True}},
    )
    seen: List[Any] = []

    def redirect(input_data, tool_use_id, context):  # a plain function works too
        seen.append((tool_use_id, context["session_id"], context["cwd"]))
        # Called on the event loop of the awaiting code, as the SDK calls hooks.
        assert asyncio.get_running_loop() is loop
        return {"hookSpecificOutput": {"updatedInput": {"file_path": "app/Models/Safe.php"}}}

    async def remind(input_data, tool_use_id, context):
        return {"systemMessage": "Remember the style guide"}

    reldo = Reldo(
        config=ReviewConfig.from_file(Path(".claude/reldo.json")),
        hooks={
            "PreToolUse": [HookMatcher(matcher="Read", hooks=[redirect])],
            "PostToolUse": [HookMatcher(matcher="Read|Grep", hooks=[remind])],
        },
    )
    loop = None

    async def main():
        nonlocal loop
        loop = asyncio.get_running_loop()
        return await reldo.review(prompt="Review app/Models/User.php")

    asyncio.run(main())
    sent = user_text(server.requests()[1])
    assert "SAFE-CONTENT" in sent and "public $password" not in sent
    assert "Remember the style guide" in sent
    [(tool_use_id, session_id, cwd)] = seen
    assert tool_use_id and session_id and Path(cwd) == project.resolve()


def test_fr9_stop_and_subagent_stop_hooks(server, project: Path) -> None:
    server.push(
        {"when_contains": "# Code Review Orchestrator", "reply": {"tool_use": task("backend-reviewer", "Review app/Models/User.php")}},
        {"when_contains": "# Backend Reviewer", "reply": {"text": "STATUS: PASS"}},
        {"when_contains": "# Code Review Orchestrator", "reply": {"json": {"passed": True}}},
        {"when_contains": "# Code Review Orchestrator", "reply": {"json": {"passed": False}}},
    )
    events: List[Dict[str, Any]] = []

    async def subagent_stop(input_data, tool_use_id, context):
        events.append(input_data)
        return None

    def stop(input_data, tool_use_id, context):
        events.append(input_data)
        if not input_data.get("stop_hook_active"):
            return {"decision": "block", "reason": "Check the migrations too"}
        return None

    reldo = Reldo(
        config=ReviewConfig.from_file(Path(".claude/reldo.json")),
        hooks={"SubagentStop": [HookMatcher(hooks=[subagent_stop])], "Stop": [HookMatcher(hooks=[stop])]},
    )
    result = asyncio.run(reldo.review(prompt="Review app/Models/User.php"))
    kinds = [(e["hook_event_name"], e.get("agent_type")) for e in events]
    assert kinds == [
        ("SubagentStop", "backend-reviewer"),
        ("Stop", None),
        ("Stop", None),
    ], kinds
    assert "Check the migrations too" in user_text(server.requests()[-1])
    assert result.structured_output == {"passed": False}
