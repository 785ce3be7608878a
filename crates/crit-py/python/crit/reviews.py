"""Template reviews (``crit review NAME``) and plan reviews (``crit plan``)."""

from __future__ import annotations

import json
import os
from typing import Mapping, Optional, Union

from crit import _crit
from crit.result import PromptReview, ReviewResult, TemplateResult

__all__ = [
    "review_prompt",
    "review_prompt_sync",
    "review_plan",
    "review_plan_sync",
    "review_template",
    "review_template_sync",
]

PathArg = Union[str, "os.PathLike[str]"]


def _path(p: Optional[PathArg]) -> Optional[str]:
    return os.fspath(p) if p is not None else None


async def review_template(
    name: str,
    /,
    *,
    cwd: Optional[PathArg] = None,
    model: Optional[str] = None,
    context_file: Optional[PathArg] = None,
    log: bool = True,
    **inputs: str,
) -> TemplateResult:
    """Runs the review template ``name`` (built-in ``arch``, ``tasks``,
    ``code``, or one in ``.crit/templates`` or ``~/.config/crit/templates``)
    with its inputs as keyword arguments, e.g.
    ``await review_template("arch", input="docs/slice.md", against="docs/hld.md")``
    or ``await review_template("code", diff="main..HEAD")``. ``cwd``: the
    project (default: the current directory); ``model`` overrides every
    reviewer's; ``log=False`` keeps no session. The result also has the
    review templates' ``template_name``, ``input_files``, ``timestamp``,
    ``has_failures`` and ``concern_count``."""
    raw = await _crit.review_template(
        name, dict(inputs), _path(cwd), model, _path(context_file), log
    )
    return TemplateResult.from_json(raw)


def review_template_sync(
    name: str,
    /,
    *,
    cwd: Optional[PathArg] = None,
    model: Optional[str] = None,
    context_file: Optional[PathArg] = None,
    log: bool = True,
    **inputs: str,
) -> TemplateResult:
    """``review_template``, blocking; Ctrl-C stops it."""
    raw = _crit.review_template_sync(
        name, dict(inputs), _path(cwd), model, _path(context_file), log
    )
    return TemplateResult.from_json(raw)


async def review_plan(
    path: PathArg,
    answers: Optional[Mapping[str, str]] = None,
    *,
    panel: bool = True,
    cwd: Optional[PathArg] = None,
    log: bool = True,
    fail_on: Optional[str] = None,
) -> ReviewResult:
    """Reviews a plan (a session directory, a ``plan.md``, or
    ``session://ID``): its deterministic checks fix what they can and ask
    about the rest; ``answers`` maps a check's id to ``approve``, ``abort``
    or replacement text. With ``panel`` and a model backend configured, the
    persona panel then reviews the plan, with the settings ``crit plan`` uses
    in the project at ``cwd`` (its timeout and budget); a relative ``path`` is
    taken from ``cwd``. ``log`` appends the audit line ``crit stats`` counts.
    ``fail_on`` (``p0``…``p3``, ``concerns``, ``never``) sets the gate as
    ``crit plan --fail-on`` does: ``passed`` is decided at that level.
    ``verdict == "PASS"`` is APPROVED."""
    raw = await _crit.review_plan(
        os.fspath(path), dict(answers or {}), panel, _path(cwd), log, fail_on
    )
    return ReviewResult.from_json(raw)


def review_plan_sync(
    path: PathArg,
    answers: Optional[Mapping[str, str]] = None,
    *,
    panel: bool = True,
    cwd: Optional[PathArg] = None,
    log: bool = True,
    fail_on: Optional[str] = None,
) -> ReviewResult:
    """``review_plan``, blocking; Ctrl-C stops it."""
    raw = _crit.review_plan_sync(
        os.fspath(path), dict(answers or {}), panel, _path(cwd), log, fail_on
    )
    return ReviewResult.from_json(raw)


def _prompt_result(raw: str) -> ReviewResult:
    both = json.loads(raw)
    result = ReviewResult.from_dict(both["result"])
    result.prompt = PromptReview.from_dict(both["review"])
    return result


async def review_prompt(
    text: str,
    *,
    cwd: Optional[PathArg] = None,
    model: Optional[str] = None,
    cache: bool = True,
    log: bool = True,
) -> ReviewResult:
    """Reviews a prompt before an agent runs it, as the prompt-review plugin
    does: specialist reviewers critique it in parallel and a deterministic
    editor merges their edits. ``result.findings`` are the critiques on
    crit's scale, ``result.prompt.refined`` the refined prompt and
    ``result.prompt.diff`` the change. It fails open, loudly: a review that
    cannot run has ``verdict == "ERROR"``, says why in ``parse_error`` and
    ``result.prompt.warnings``, and its ``prompt.chosen`` is the original.
    A refined prompt is the caller's to accept: ``prompt.chosen`` is then
    ``None``.
    ``cache=False`` skips the cache of earlier reviews; ``log=False`` writes
    no audit line."""
    raw = await _crit.review_prompt(text, _path(cwd), model, cache, log)
    return _prompt_result(raw)


def review_prompt_sync(
    text: str,
    *,
    cwd: Optional[PathArg] = None,
    model: Optional[str] = None,
    cache: bool = True,
    log: bool = True,
) -> ReviewResult:
    """``review_prompt``, blocking; Ctrl-C stops it."""
    return _prompt_result(_crit.review_prompt_sync(text, _path(cwd), model, cache, log))
