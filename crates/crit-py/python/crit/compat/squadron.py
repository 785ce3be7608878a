"""The review templates' Python API on crit: a user of ``orchestration.review``
changes one import::

    from crit.compat.squadron import get_template, list_templates, run_review

    template = get_template("arch")
    result = await run_review(template, {"input": "slice.md", "against": "hld.md"})
    result.verdict, result.findings[0].severity, result.findings[0].file_ref
    result.to_dict()  # what `--output json` prints for the original

``ReviewResult`` and ``ReviewFinding`` are the original's dataclasses (with
``has_failures``, ``concern_count``, ``to_dict()``); ``result.result`` holds
crit's whole result (``passed``, ``warnings``, crit's severities). The
registry starts with crit's templates (built-in, the user's, the project's
as its rules allow); ``register_template`` adds one in this process. A
template's ``prompt_builder`` is a Python callable, imported by
``load_template`` from its dotted path as the original does, and called by
``run_review`` to build the prompt.
"""

from __future__ import annotations

import importlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from crit import _crit
from crit.result import ReviewResult as CritResult

__all__ = [
    "InputDef",
    "ReviewFinding",
    "ReviewResult",
    "ReviewTemplate",
    "Severity",
    "TemplateValidationError",
    "Verdict",
    "get_template",
    "list_templates",
    "load_template",
    "register_template",
    "run_review",
]

PathArg = Union[str, "os.PathLike[str]"]


class Verdict(str, Enum):
    PASS = "PASS"
    CONCERNS = "CONCERNS"
    FAIL = "FAIL"
    UNKNOWN = "UNKNOWN"


class Severity(str, Enum):
    PASS = "PASS"
    CONCERN = "CONCERN"
    FAIL = "FAIL"


class TemplateValidationError(ValueError):
    """A template file the original's loader refuses."""


@dataclass
class ReviewFinding:
    """A single finding from a review."""

    severity: Severity
    title: str
    description: str
    file_ref: Optional[str] = None


@dataclass
class ReviewResult:
    """The original's structured output of a review; ``result`` is crit's."""

    verdict: Verdict
    findings: List[ReviewFinding]
    raw_output: str
    template_name: str
    input_files: Dict[str, str]
    timestamp: datetime = field(default_factory=datetime.now)
    result: Optional[CritResult] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_crit(cls, r: CritResult) -> "ReviewResult":
        # crit's own mapping, the one `--compat squadron` prints.
        d = json.loads(_crit.squadron_dict(json.dumps(r.to_dict())))
        try:
            stamp = datetime.fromisoformat((d.get("timestamp") or "").replace("Z", "+00:00"))
        except ValueError:
            stamp = datetime.now()
        return cls(
            verdict=Verdict(d["verdict"]),
            findings=[
                ReviewFinding(
                    severity=Severity(f["severity"]),
                    title=f["title"],
                    description=f["description"],
                    file_ref=f.get("file_ref"),
                )
                for f in d["findings"]
            ],
            raw_output=d["raw_output"],
            template_name=d["template_name"],
            input_files=dict(d["input_files"]),
            timestamp=stamp,
            result=r,
        )

    def to_dict(self) -> Dict[str, Any]:
        """Serialize for JSON output, as the original's ``to_dict()``."""
        return {
            "verdict": self.verdict.value,
            "findings": [
                {
                    "severity": f.severity.value,
                    "title": f.title,
                    "description": f.description,
                    "file_ref": f.file_ref,
                }
                for f in self.findings
            ],
            "raw_output": self.raw_output,
            "template_name": self.template_name,
            "input_files": dict(self.input_files),
            "timestamp": self.timestamp.isoformat(),
        }

    @property
    def has_failures(self) -> bool:
        return any(f.severity == Severity.FAIL for f in self.findings)

    @property
    def concern_count(self) -> int:
        return sum(1 for f in self.findings if f.severity == Severity.CONCERN)


@dataclass
class InputDef:
    """Definition of a template input (CLI argument)."""

    name: str
    description: str
    default: Optional[str] = None


@dataclass
class ReviewTemplate:
    """A review template, as the original's loader makes it."""

    name: str
    description: str
    system_prompt: str
    allowed_tools: List[str]
    permission_mode: str
    setting_sources: Optional[List[str]]
    required_inputs: List[InputDef]
    optional_inputs: List[InputDef]
    hooks: Optional[Dict[str, Any]] = None
    prompt_template: Optional[str] = None
    prompt_builder: Optional[Callable[[Dict[str, str]], str]] = None
    _crit: bool = field(default=False, repr=False, compare=False)
    """Loaded from crit's registry: it runs there as it is."""

    def build_prompt(self, inputs: Dict[str, str]) -> str:
        if self.prompt_builder is not None:
            return self.prompt_builder(inputs)
        if self.prompt_template is not None:
            return self.prompt_template.format(**inputs)
        raise ValueError(f"Template '{self.name}' has neither prompt_template nor prompt_builder")

    def _yaml(self, inputs: Dict[str, str]) -> str:
        """This template as crit reads it (JSON is YAML), its prompt built
        here when it has a Python builder."""
        data: Dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "system_prompt": self.system_prompt,
            "allowed_tools": list(self.allowed_tools),
            "permission_mode": self.permission_mode,
            "setting_sources": self.setting_sources,
            "inputs": {
                "required": [_input(i) for i in self.required_inputs],
                "optional": [_input(i) for i in self.optional_inputs],
            },
        }
        if self.hooks is not None:
            data["hooks"] = self.hooks
        if self.prompt_builder is not None:
            built = self.prompt_builder(dict(inputs))
            # The built prompt is text: nothing in it is a placeholder.
            data["prompt_template"] = "{% raw %}" + built.replace(
                "{% endraw %}", "{% endraw %}{{ '{% endraw %}' }}{% raw %}"
            ) + "{% endraw %}"
        else:
            data["prompt_template"] = self.prompt_template
        return json.dumps(data)


def _input(i: InputDef) -> Dict[str, Any]:
    out: Dict[str, Any] = {"name": i.name, "description": i.description}
    if i.default is not None:
        out["default"] = i.default
    return out


_TEMPLATES: Dict[str, ReviewTemplate] = {}


def register_template(template: ReviewTemplate) -> None:
    """Adds (or replaces) a template in this process's registry."""
    _TEMPLATES[template.name] = template


def get_template(name: str, *, cwd: Optional[PathArg] = None) -> Optional[ReviewTemplate]:
    """The template ``name``: one registered here, else crit's; ``None`` when
    there is none."""
    if name in _TEMPLATES:
        return _TEMPLATES[name]
    return next((t for t in _crit_templates(cwd) if t.name == name), None)


def list_templates(*, cwd: Optional[PathArg] = None) -> List[ReviewTemplate]:
    """crit's templates (for the project at ``cwd``) and those registered
    here, by name."""
    by_name = {t.name: t for t in _crit_templates(cwd)}
    by_name.update(_TEMPLATES)
    return [by_name[n] for n in sorted(by_name)]


def _crit_templates(cwd: Optional[PathArg]) -> List[ReviewTemplate]:
    raw = json.loads(_crit.templates(os.fspath(cwd) if cwd is not None else None))
    return [
        ReviewTemplate(
            name=t["name"],
            description=t["description"],
            system_prompt=t["system_prompt"],
            allowed_tools=list(t["allowed_tools"]),
            permission_mode=t["permission_mode"],
            setting_sources=t["setting_sources"],
            required_inputs=[InputDef(**i) for i in t["required_inputs"]],
            optional_inputs=[InputDef(**i) for i in t["optional_inputs"]],
            hooks=t["hooks"],
            prompt_template=t["prompt_template"],
            _crit=True,
        )
        for t in raw
    ]


def load_template(path: PathArg) -> ReviewTemplate:
    """Loads a template file as the original does: exactly one of
    ``prompt_template`` and ``prompt_builder``, the builder imported from
    its dotted path."""
    with open(path, encoding="utf-8") as f:
        data = json.loads(_crit.yaml_to_json(f.read()))
    if ("prompt_template" in data) == ("prompt_builder" in data):
        raise TemplateValidationError(
            "Template must specify exactly one of prompt_template or prompt_builder"
        )
    builder = None
    if "prompt_builder" in data:
        module, _, name = str(data["prompt_builder"]).rpartition(".")
        builder = getattr(importlib.import_module(module), name)
    inputs = data.get("inputs") or {}
    return ReviewTemplate(
        name=data["name"],
        description=data["description"],
        system_prompt=data["system_prompt"],
        allowed_tools=data["allowed_tools"],
        permission_mode=data["permission_mode"],
        setting_sources=data.get("setting_sources"),
        required_inputs=[InputDef(**i) for i in inputs.get("required", [])],
        optional_inputs=[InputDef(**i) for i in inputs.get("optional", [])],
        hooks=data.get("hooks"),
        prompt_template=data.get("prompt_template"),
        prompt_builder=builder,
    )


async def run_review(
    template: ReviewTemplate,
    inputs: Dict[str, str],
    *,
    model: Optional[str] = None,
    log: bool = True,
) -> ReviewResult:
    """Runs ``template`` on ``inputs`` (their ``cwd``, as in the original, is
    the project); crit's template as crit has it, any other as given here."""
    cwd = inputs.get("cwd")
    # crit's own template runs as crit has it; any other as given here.
    text = None if template._crit else template._yaml(inputs)
    raw = await _crit.review_template(
        template.name, dict(inputs), cwd, model, None, log, text
    )
    return ReviewResult.from_crit(CritResult.from_json(raw))
