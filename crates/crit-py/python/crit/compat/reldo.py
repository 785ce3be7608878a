"""Reldo's library API on crit: a Reldo user changes one import::

    from crit.compat.reldo import Reldo, ReviewConfig, HookMatcher

    config = ReviewConfig.from_file(Path(".claude/reldo.json"))
    reldo = Reldo(config=config, hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[block])]})
    result = await reldo.review(prompt="Review app/Models/User.php")
    result.text, result.structured_output, result.total_cost_usd, result.passed

The config file, its prompts and agents load as they are. The review is
crit's: it fails closed, and ``result.result`` holds crit's whole result.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from crit.hooks import HookMatcher, HooksArg
from crit.result import ReviewResult as CritResult
from crit.run import Crit

__all__ = ["HookMatcher", "Reldo", "ReviewConfig", "ReviewResult"]


@dataclass
class ReviewConfig:
    """Reldo's configuration: the orchestrator's ``prompt`` (a file or inline
    text), its ``allowed_tools``, ``mcp_servers`` and sub-``agents``, an
    optional ``output_schema``, ``cwd``, ``timeout_seconds`` (180),
    ``model`` and ``logging``."""

    prompt: Optional[str] = None
    allowed_tools: Optional[List[str]] = None
    mcp_servers: Optional[Dict[str, Any]] = None
    agents: Optional[Dict[str, Any]] = None
    output_schema: Optional[Dict[str, Any]] = None
    cwd: Optional[Union[str, Path]] = None
    timeout_seconds: Optional[int] = None
    model: Optional[str] = None
    logging: Optional[Dict[str, Any]] = None
    max_turns: Optional[int] = None
    _path: Optional[str] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "ReviewConfig":
        """Loads ``.claude/reldo.json`` (or any crit run config, JSON or
        YAML); its relative paths resolve as crit resolves them."""
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            data = json.loads(text)
        except ValueError:
            data = {}
        known = {k: data.get(k) for k in cls.__dataclass_fields__ if not k.startswith("_")}
        return cls(**known, _path=path)

    def to_dict(self) -> Dict[str, Any]:
        """The settings given, with Reldo's keys."""
        out = {
            k: getattr(self, k)
            for k in self.__dataclass_fields__
            if not k.startswith("_") and getattr(self, k) is not None
        }
        if "cwd" in out:
            out["cwd"] = os.fspath(out["cwd"])
        return out


@dataclass
class ReviewResult:
    """Reldo's result: the orchestrator's text, tokens, cost, duration and
    the ``structured_output`` an ``output_schema`` asked for."""

    text: str
    input_tokens: int
    output_tokens: int
    total_tokens: int
    total_cost_usd: float
    duration_ms: int
    structured_output: Optional[Dict[str, Any]] = None
    passed: bool = False
    """Whether the review passed crit's gate (never for a review that did
    not finish or could not be read)."""
    result: Optional[CritResult] = field(default=None, repr=False)
    """crit's whole result: verdict, ``passed``, findings, ``parse_error``."""

    @classmethod
    def from_crit(cls, r: CritResult) -> "ReviewResult":
        u = r.usage
        return cls(
            text=r.raw_output,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            total_tokens=u.input_tokens + u.output_tokens,
            total_cost_usd=r.cost_usd,
            duration_ms=r.duration_ms,
            structured_output=r.structured_output,
            passed=r.passed,
            result=r,
        )


class Reldo:
    """Reldo's entry point: ``await Reldo(config=…, hooks=…).review(prompt=…)``."""

    def __init__(self, config: ReviewConfig, hooks: HooksArg = None) -> None:
        self.config = config
        if config._path is not None:
            self._crit = Crit.from_config(config._path, hooks=hooks)
        else:
            self._crit = Crit(config.to_dict(), hooks=hooks)

    async def review(self, prompt: str) -> ReviewResult:
        """Runs the orchestrator on ``prompt``."""
        return ReviewResult.from_crit(await self._crit.review(prompt))
