"""Code reviewers for pipelines, with mala's ``CodeReviewer`` protocol::

    result = await reviewer(diff_range="main..HEAD", context_file="/tmp/ctx.md", timeout=300)
    result.passed, result.issues, result.parse_error, result.fatal_error, result.review_log_path

An empty change passes at once without a model call; whatever goes wrong is
in the result (``parse_error``, ``fatal_error``) and never passes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Union

from crit import _crit
from crit.result import Finding, ReviewResult

__all__ = [
    "AgentReviewer",
    "CodeReviewResult",
    "CommandReviewer",
    "ReviewIssue",
    "code_reviewer",
]

PathArg = Union[str, "os.PathLike[str]"]

_PRIORITY = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
_VERDICT = {"PASS": "PASS", "CONCERNS": "NEEDS_WORK"}


@dataclass
class ReviewIssue:
    """One finding with mala's fields: ``priority`` 0–3 for P0–P3 (``None``
    for an informational note)."""

    file: str
    line_start: int
    line_end: int
    priority: Optional[int]
    title: str
    body: str
    reviewer: str

    @classmethod
    def from_finding(cls, f: Finding) -> "ReviewIssue":
        loc = f.location
        start = (loc.line_start or loc.line or 0) if loc else 0
        return cls(
            file=loc.path if loc else "",
            line_start=start,
            line_end=(loc.line_end or start) if loc else 0,
            priority=_PRIORITY.get(f.severity),
            title=f.title,
            body=f.body,
            reviewer=f.reviewer,
        )


@dataclass
class CodeReviewResult:
    """mala's ``ReviewResultProtocol``; ``result`` is crit's whole result."""

    passed: bool
    issues: List[ReviewIssue] = field(default_factory=list)
    parse_error: Optional[str] = None
    fatal_error: bool = False
    review_log_path: Optional[str] = None
    consensus_verdict: str = "FAIL"
    """``PASS``, ``NEEDS_WORK`` or ``FAIL`` (anything that did not finish is ``FAIL``)."""
    result: Optional[ReviewResult] = field(default=None, repr=False)

    @classmethod
    def from_result(cls, r: ReviewResult) -> "CodeReviewResult":
        return cls(
            passed=r.passed,
            issues=[ReviewIssue.from_finding(f) for f in r.findings],
            parse_error=r.parse_error,
            fatal_error=r.fatal_error,
            review_log_path=r.session_log_path,
            consensus_verdict=_VERDICT.get(r.verdict, "FAIL"),
            result=r,
        )


class _Reviewer:
    _native: _crit.CodeReviewer

    @property
    def kind(self) -> str:
        """``agent`` or ``command``."""
        return self._native.kind

    async def __call__(
        self,
        diff_range: Optional[str] = None,
        context_file: Optional[PathArg] = None,
        timeout: Optional[float] = None,
        claude_session_id: Optional[str] = None,
        *,
        commit_shas: Optional[Sequence[str]] = None,
    ) -> CodeReviewResult:
        """Reviews ``diff_range`` (``A..B``, ``A...B``, or a ref the working
        tree is compared with), else each of ``commit_shas``. ``timeout`` in
        seconds; ``None`` takes the configured one (``timeout`` in
        ``.crit/config.yaml``), else 600. Cancelling the awaiting task stops the
        review and kills its processes."""
        self._starting(diff_range, commit_shas)
        raw = await self._native.review(
            diff_range,
            list(commit_shas or []),
            os.fspath(context_file) if context_file is not None else None,
            timeout,
            claude_session_id,
        )
        return self._reported(CodeReviewResult.from_result(ReviewResult.from_json(raw)))

    def review_sync(
        self,
        diff_range: Optional[str] = None,
        context_file: Optional[PathArg] = None,
        timeout: Optional[float] = None,
        claude_session_id: Optional[str] = None,
        *,
        commit_shas: Optional[Sequence[str]] = None,
    ) -> CodeReviewResult:
        """The call, blocking; Ctrl-C stops it."""
        self._starting(diff_range, commit_shas)
        raw = self._native.review_sync(
            diff_range,
            list(commit_shas or []),
            os.fspath(context_file) if context_file is not None else None,
            timeout,
            claude_session_id,
        )
        return self._reported(CodeReviewResult.from_result(ReviewResult.from_json(raw)))

    def _starting(self, diff_range: Optional[str], commit_shas: Optional[Sequence[str]]) -> None:
        """Before a review: where a facade logs as its original tool does."""

    def _reported(self, result: CodeReviewResult) -> CodeReviewResult:
        """After a review: where a facade adjusts the result to its original tool."""
        return result

    def overrides_disabled_setting(self) -> bool:
        """Whether it runs where reviews are switched off: never."""
        return self._native.overrides_disabled_setting()


class AgentReviewer(_Reviewer):
    """crit's reviewer, in process: the ``code`` review template (or the
    project's override of it) on the configured model backend, which reads
    the change and the code with read-only, confined tools."""

    def __init__(
        self,
        repo_path: PathArg = ".",
        *,
        model: Optional[str] = None,
        log: bool = True,
        system_prompt: Optional[str] = None,
    ) -> None:
        """``system_prompt`` replaces the template's reviewer instructions
        (crit's answer contract still follows them)."""
        self._native = _crit.CodeReviewer.agent(os.fspath(repo_path), model, log, system_prompt)


class CommandReviewer(_Reviewer):
    """An external reviewer program (a Cerberus-style ``review-gate``): it
    gets the change in ``CRIT_DIFF_RANGE``, ``CRIT_COMMITS``,
    ``CRIT_CONTEXT_FILE``, ``CRIT_SESSION_ID`` and placeholders
    (``{diff_range}``, ``{commits}``, ``{context_file}``, ``{session_id}``) in
    ``command``, and answers with the findings JSON."""

    def __init__(self, command: Sequence[str], repo_path: PathArg = ".") -> None:
        self._native = _crit.CodeReviewer.command(list(command), os.fspath(repo_path))


def code_reviewer(
    repo_path: PathArg = ".", *, model: Optional[str] = None, log: bool = True
) -> Union[AgentReviewer, CommandReviewer]:
    """The reviewer the project's config chooses: ``reviewer: command`` (with
    ``command:``, once the project's settings are trusted) is a
    ``CommandReviewer``; otherwise, by default, an ``AgentReviewer``."""
    native = _crit.CodeReviewer.configured(os.fspath(repo_path), model, log)
    cls = AgentReviewer if native.kind == "agent" else CommandReviewer
    reviewer = cls.__new__(cls)
    reviewer._native = native
    return reviewer
