"""``Crit``: an orchestrator agent that delegates to specialist reviewers and
merges their reports (``crit run``; Reldo's library)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Union

from crit import _crit
from crit.hooks import HooksArg, _specs
from crit.result import ReviewResult

__all__ = ["Crit"]


class Crit:
    """A configured orchestrator. Cheap to build; ``review`` does the work.

    ``config`` has the keys of Reldo's ``.claude/reldo.json`` (``prompt``,
    ``allowed_tools``, ``agents``, ``mcp_servers``, ``output_schema``,
    ``cwd``, ``timeout_seconds``, ``max_turns``, ``model``, ``logging``).
    The model backend is the one ``crit`` would use here: ``CRIT_*`` and the
    providers' variables, ``.crit/config.yaml``, the user's config.
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        hooks: HooksArg = None,
        max_budget_usd: Optional[float] = None,
        verbose: bool = False,
    ) -> None:
        self._native = _crit.Crit.from_json(
            json.dumps(dict(config)), _specs(hooks), max_budget_usd, verbose
        )

    @classmethod
    def from_config(
        cls,
        path: Union[str, "os.PathLike[str]"],
        *,
        hooks: HooksArg = None,
        max_budget_usd: Optional[float] = None,
        verbose: bool = False,
    ) -> "Crit":
        """Loads a config file (JSON or YAML; Reldo's ``.claude/reldo.json``
        works as is), relative to the current directory."""
        self = cls.__new__(cls)
        self._native = _crit.Crit.from_config(
            os.fspath(path), _specs(hooks), max_budget_usd, verbose
        )
        return self

    @property
    def cwd(self) -> str:
        """The directory the reviewers work in."""
        return os.fspath(self._native.cwd)

    async def review(self, prompt: str) -> ReviewResult:
        """Runs the orchestrator on ``prompt``. Cancelling the awaiting task
        stops the review and kills its processes. Raises a ``CritError`` when
        the review cannot start; once it runs, failures are in the result."""
        return ReviewResult.from_json(await self._native.review(prompt))

    def review_sync(self, prompt: str) -> ReviewResult:
        """``review`` for code without an event loop; Ctrl-C stops it."""
        return ReviewResult.from_json(self._native.review_sync(prompt))
