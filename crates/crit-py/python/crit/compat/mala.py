"""mala's code reviewer on crit. ``AgentReviewer`` is the in-process reviewer
(mala's ``AgentSDKReviewer``), ``CommandReviewer`` runs an external reviewer
program (Cerberus' ``review-gate``), and ``reviewer_from_config`` picks one
as the project's ``.crit/config.yaml`` says (``reviewer: command``), the
agent by default. Both satisfy mala's ``CodeReviewer`` protocol::

    reviewer = AgentReviewer(repo_path, review_agent_prompt, event_sink=sink)
    result = await reviewer(diff_range="main..HEAD", context_file="/tmp/ctx.md", timeout=300)
    result.passed, result.issues, result.parse_error, result.fatal_error, result.review_log_path

As mala's do, they log ``Initializing code reviewer: agent-sdk`` (or
``cerberus``) on the logger ``src.orchestration.factory`` when made and
``Starting review for RANGE with agent-sdk`` on
``src.infra.clients.agent_sdk_review`` (``…cerberus_review``) when called,
at INFO; the agent's issues carry ``reviewer="agent-sdk"``; an
``event_sink`` (mala's ``MalaEventSink``) hears ``on_review_warning(message)``
for a parse error, a timeout or any other non-fatal problem.
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Sequence

from crit import code
from crit.code import CodeReviewResult, PathArg, ReviewIssue

__all__ = [
    "AgentReviewer",
    "AgentSDKReviewer",
    "CerberusReviewer",
    "CommandReviewer",
    "ReviewIssue",
    "ReviewResult",
    "reviewer_from_config",
]

ReviewResult = CodeReviewResult

# mala's module loggers, so a mala user's logging setup sees these lines.
_FACTORY = logging.getLogger("src.orchestration.factory")
_LOGS = {
    "agent-sdk": logging.getLogger("src.infra.clients.agent_sdk_review"),
    "cerberus": logging.getLogger("src.infra.clients.cerberus_review"),
}


class _Mala:
    """mala's instrumentation around one of crit's reviewers."""

    _type: str
    _native: Any
    event_sink: Optional[Any] = None

    def _made(self, event_sink: Optional[Any]) -> None:
        self.event_sink = event_sink
        _FACTORY.info("Initializing code reviewer: %s", self._type)

    def _starting(
        self, diff_range: Optional[str], commit_shas: Optional[Sequence[str]]
    ) -> None:
        what = diff_range if diff_range is not None else ", ".join(commit_shas or [])
        _LOGS[self._type].info("Starting review for %s with %s", what, self._type)

    def _reported(self, result: CodeReviewResult) -> CodeReviewResult:
        if self._type == "agent-sdk":
            for issue in result.issues:
                issue.reviewer = self._type
        if self.event_sink is not None:
            for message in _warnings(result):
                self.event_sink.on_review_warning(message)
        return result


def _warnings(result: CodeReviewResult) -> List[str]:
    """What mala's reviewer reports to ``on_review_warning``: why the answer
    could not be used (``timeout``, ``invalid json: …``), then crit's own
    warnings about the review."""
    out = [result.parse_error] if result.parse_error else []
    if result.result is not None:
        out.extend(result.result.warnings)
    return out


class AgentReviewer(_Mala, code.AgentReviewer):
    """crit's reviewer in process, as mala's ``AgentSDKReviewer``."""

    _type = "agent-sdk"

    def __init__(
        self,
        repo_path: PathArg = ".",
        review_agent_prompt: Optional[str] = None,
        *,
        model: Optional[str] = None,
        log: bool = True,
        event_sink: Optional[Any] = None,
    ) -> None:
        """As mala constructs its reviewer: ``review_agent_prompt`` (the text
        of mala's ``review_agent.md``) is the reviewer's system prompt; crit
        adds its findings-JSON instructions, the same contract mala's prompt
        asks for. Without it, the ``code`` template's own prompt."""
        code.AgentReviewer.__init__(
            self, repo_path, model=model, log=log, system_prompt=review_agent_prompt
        )
        self._made(event_sink)


class CommandReviewer(_Mala, code.CommandReviewer):
    """An external reviewer program, as mala's Cerberus ``DefaultReviewer``."""

    _type = "cerberus"

    def __init__(
        self,
        command: Sequence[str],
        repo_path: PathArg = ".",
        *,
        event_sink: Optional[Any] = None,
    ) -> None:
        code.CommandReviewer.__init__(self, command, repo_path)
        self._made(event_sink)


def reviewer_from_config(
    repo_path: PathArg = ".",
    *,
    model: Optional[str] = None,
    log: bool = True,
    event_sink: Optional[Any] = None,
) -> "AgentReviewer | CommandReviewer":
    """mala's factory: the reviewer the project's config chooses
    (``reviewer: command``, once trusted, or mala.yaml's ``reviewer_type:
    cerberus``), else the agent."""
    chosen = code.code_reviewer(repo_path, model=model, log=log)
    cls = AgentReviewer if chosen.kind == "agent" else CommandReviewer
    reviewer = cls.__new__(cls)
    reviewer._native = chosen._native
    reviewer._made(event_sink)
    return reviewer


AgentSDKReviewer = AgentReviewer
CerberusReviewer = CommandReviewer
