"""The result every crit review returns, as typed Python objects.

It mirrors crit's published ``ReviewResult`` JSON schema
(``schemas/review-result.schema.json``): ``ReviewResult.from_json`` reads it,
``to_json`` gives it back unchanged, fields crit adds later included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Optional

__all__ = [
    "Dismissed",
    "Finding",
    "Location",
    "PromptReview",
    "ReviewResult",
    "ReviewerOutcome",
    "TemplateResult",
    "Usage",
]


@dataclass
class Usage:
    """Tokens a review used."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def total(self) -> int:
        """Every token, input (cached or not) and output."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_write_tokens
            + self.cache_read_tokens
        )

    @classmethod
    def from_dict(cls, d: Optional[Dict[str, Any]]) -> "Usage":
        d = d or {}
        return cls(
            input_tokens=int(d.get("input_tokens", 0)),
            output_tokens=int(d.get("output_tokens", 0)),
            cache_write_tokens=int(d.get("cache_write_tokens", 0)),
            cache_read_tokens=int(d.get("cache_read_tokens", 0)),
        )


@dataclass
class Location:
    """Where a finding is: a file of the project (``kind == "file"``, with a
    1-based inclusive line range) or a section of a document
    (``kind == "document"``, with a heading and a line)."""

    kind: str
    path: str
    line_start: Optional[int] = None
    line_end: Optional[int] = None
    heading: Optional[str] = None
    line: Optional[int] = None

    @classmethod
    def from_dict(cls, d: Optional[Dict[str, Any]]) -> Optional["Location"]:
        if not d:
            return None
        return cls(
            kind=d.get("kind", "file"),
            path=d.get("path", ""),
            line_start=d.get("line_start"),
            line_end=d.get("line_end"),
            heading=d.get("heading"),
            line=d.get("line"),
        )


@dataclass
class Finding:
    """One problem a reviewer reported."""

    id: str
    """Stable fingerprint: the same problem keeps it across runs."""
    title: str
    severity: str
    """``P0`` blocker, ``P1`` major, ``P2`` should fix, ``P3`` nit, ``info``."""
    body: str = ""
    confidence: Optional[float] = None
    location: Optional[Location] = None
    reviewer: str = ""
    rule_id: Optional[str] = None
    suggestion: Optional[str] = None
    in_change: Optional[bool] = None

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Finding":
        return cls(
            id=d.get("id", ""),
            title=d.get("title", ""),
            severity=d.get("severity", "info"),
            body=d.get("body", ""),
            confidence=d.get("confidence"),
            location=Location.from_dict(d.get("location")),
            reviewer=d.get("reviewer", ""),
            rule_id=d.get("rule_id"),
            suggestion=d.get("suggestion"),
            in_change=d.get("in_change"),
        )


@dataclass
class Dismissed:
    """A finding reported but not counted (suppressed, outside the change,
    over the cap); the gate never looks at it."""

    finding: Finding
    cause: str
    reason: str

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Dismissed":
        return cls(
            finding=Finding.from_dict(d.get("finding", {})),
            cause=d.get("cause", ""),
            reason=d.get("reason", ""),
        )


@dataclass
class ReviewerOutcome:
    """How one reviewer (or sub-agent) of the panel did."""

    name: str
    status: str
    """``completed``, ``incomplete``, ``parse_error``, ``failed`` or ``skipped``."""
    verdict: str
    model: Optional[str] = None
    findings: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    duration_ms: int = 0
    error: Optional[str] = None

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "ReviewerOutcome":
        return cls(
            name=d.get("name", ""),
            status=d.get("status", ""),
            verdict=d.get("verdict", ""),
            model=d.get("model"),
            findings=int(d.get("findings", 0)),
            usage=Usage.from_dict(d.get("usage")),
            cost_usd=float(d.get("cost_usd", 0.0)),
            duration_ms=int(d.get("duration_ms", 0)),
            error=d.get("error"),
        )


@dataclass
class PromptReview:
    """What a prompt review did to the prompt: the refined prompt and the
    diff. ``chosen`` is the prompt that goes on when there was nothing to
    decide (no changes, or the original when the review failed open); it is
    ``None`` when the review refined the prompt and the caller decides
    between ``original`` and ``refined``. ``status``: ``refined``, ``no_changes``,
    ``failed_open`` (the review could not run; the original goes on),
    ``editor_failed`` or ``disabled``. ``raw`` is crit's whole record of it
    (critiques, applied and dropped edits, each reviewer)."""

    original: str
    refined: str
    chosen: Optional[str]
    status: str
    outcome: str
    diff: str = ""
    warnings: List[str] = field(default_factory=list)
    cached: bool = False
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "PromptReview":
        return cls(
            original=d.get("original", ""),
            refined=d.get("refined", ""),
            chosen=d.get("chosen"),
            status=str(d.get("status", "")),
            outcome=str(d.get("outcome", "")),
            diff=d.get("diff", ""),
            warnings=list(d.get("warnings", [])),
            cached=bool(d.get("cached", False)),
            raw=d,
        )


@dataclass
class ReviewResult:
    """One review's result: the verdict, the findings, how each reviewer did,
    usage and cost. ``passed`` is never true for ``UNKNOWN``, ``ERROR`` or
    ``INCOMPLETE``, nor when ``parse_error`` is set or ``fatal_error`` is true."""

    review: str
    """What ran: a template name (``code``, ``arch``), ``run``, ``plan``, ``prompt``."""
    verdict: str
    """``PASS``, ``CONCERNS``, ``FAIL``, ``INCOMPLETE``, ``UNKNOWN`` or ``ERROR``."""
    passed: bool
    summary: str = ""
    findings: List[Finding] = field(default_factory=list)
    dismissed: List[Dismissed] = field(default_factory=list)
    reviewers: List[ReviewerOutcome] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    duration_ms: int = 0
    raw_output: str = ""
    parse_error: Optional[str] = None
    fatal_error: bool = False
    session_log_path: Optional[str] = None
    inputs: Dict[str, str] = field(default_factory=dict)
    started_at: Optional[str] = None
    structured_output: Optional[Any] = None
    schema_version: int = 1
    prompt: Optional[PromptReview] = None
    """Set by ``review_prompt``: what the review did to the prompt."""
    warnings: List[str] = field(default_factory=list)
    """What went less well than asked without stopping the review (a setting
    crit does not use, a model with no known price); never affects the verdict."""
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "ReviewResult":
        return cls(
            review=d.get("review", ""),
            verdict=d.get("verdict", "ERROR"),
            passed=bool(d.get("passed", False)),
            summary=d.get("summary", ""),
            findings=[Finding.from_dict(f) for f in d.get("findings", [])],
            dismissed=[Dismissed.from_dict(x) for x in d.get("dismissed", [])],
            reviewers=[ReviewerOutcome.from_dict(r) for r in d.get("reviewers", [])],
            usage=Usage.from_dict(d.get("usage")),
            cost_usd=float(d.get("cost_usd", 0.0)),
            duration_ms=int(d.get("duration_ms", 0)),
            raw_output=d.get("raw_output", ""),
            parse_error=d.get("parse_error"),
            fatal_error=bool(d.get("fatal_error", False)),
            session_log_path=d.get("session_log_path"),
            inputs=dict(d.get("inputs", {})),
            started_at=d.get("started_at"),
            structured_output=d.get("structured_output"),
            schema_version=int(d.get("schema_version", 1)),
            warnings=[str(w) for w in d.get("warnings", [])],
            _raw=d,
        )

    @classmethod
    def from_json(cls, text: str) -> "ReviewResult":
        """Reads crit's JSON (``crit … --json``, a session's ``result.json``)."""
        return cls.from_dict(json.loads(text))

    def to_dict(self) -> Dict[str, Any]:
        """crit's JSON document as a dict, exactly as crit wrote it."""
        return json.loads(json.dumps(self._raw))

    def to_json(self, indent: Optional[int] = None) -> str:
        """crit's JSON document, exactly as crit wrote it (the published schema)."""
        return json.dumps(self._raw, indent=indent)


@dataclass
class TemplateResult(ReviewResult):
    """A template review's result (``review_template``), with what the review
    templates' own ``ReviewResult`` has besides: ``template_name``,
    ``input_files``, ``timestamp``, ``has_failures`` and ``concern_count``.
    Their severities read crit's: P0 and P1 are FAIL, P2 and P3 CONCERN."""

    @property
    def template_name(self) -> str:
        """The template that ran (``arch``, ``tasks``, ``code``, a project's own)."""
        return self.review

    @property
    def input_files(self) -> Dict[str, str]:
        """What was reviewed: the template's inputs, names to paths or ranges."""
        return dict(self.inputs)

    @property
    def timestamp(self) -> Optional[datetime]:
        """When the review started, in UTC (``started_at``)."""
        try:
            return datetime.fromisoformat((self.started_at or "").replace("Z", "+00:00"))
        except ValueError:
            return None

    @property
    def has_failures(self) -> bool:
        """Whether a finding is a FAIL (P0 or P1)."""
        return any(f.severity in ("P0", "P1") for f in self.findings)

    @property
    def concern_count(self) -> int:
        """How many findings are a CONCERN (P2 or P3)."""
        return sum(1 for f in self.findings if f.severity in ("P2", "P3"))
