"""Posting a result to the pull request (GitHub Actions) or merge request
(GitLab CI) the job runs for, as ``crit review code --post`` does: inline
comments with suggestions, one summary edited on every run."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from crit import _crit
from crit.result import ReviewResult

__all__ = ["PostReport", "post", "post_sync"]


@dataclass
class PostReport:
    """What one post did. ``complete`` is False when some write still failed
    after its retries (``failed`` says which); the rest was sent."""

    forge: str
    inline_posted: int
    inline_kept: int
    resolved: int
    threads_resolved: int
    in_summary: List[Dict[str, str]] = field(default_factory=list)
    summary_url: Optional[str] = None
    summary_created: bool = False
    notes: List[str] = field(default_factory=list)
    failed: List[str] = field(default_factory=list)
    complete: bool = True

    @classmethod
    def from_json(cls, text: str) -> "PostReport":
        d: Dict[str, Any] = json.loads(text)
        return cls(**d)


async def post(
    result: ReviewResult,
    forge: str,
    *,
    token_env: Optional[str] = None,
    pull_request: Optional[int] = None,
    github_login: Optional[str] = None,
    max_comments: Optional[int] = None,
) -> PostReport:
    """Posts ``result`` to the request the environment names: ``forge`` is
    ``"github"`` or ``"gitlab"``; the token is in ``GITHUB_TOKEN`` or
    ``GITLAB_TOKEN`` unless ``token_env`` names another variable. Raises
    ``ConfigError`` when the environment names no request, ``PostError`` when
    posting fails."""
    raw = await _crit.post(
        result.to_json(), forge, token_env, pull_request, github_login, max_comments
    )
    return PostReport.from_json(raw)


def post_sync(
    result: ReviewResult,
    forge: str,
    *,
    token_env: Optional[str] = None,
    pull_request: Optional[int] = None,
    github_login: Optional[str] = None,
    max_comments: Optional[int] = None,
) -> PostReport:
    """``post``, blocking until done."""
    raw = _crit.post_sync(
        result.to_json(), forge, token_env, pull_request, github_login, max_comments
    )
    return PostReport.from_json(raw)
