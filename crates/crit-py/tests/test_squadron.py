"""The review templates' Python API (``orchestration.review``) through
``crit.compat.squadron``: the original's ``ReviewResult`` and
``ReviewFinding``, its registry, its loader with a Python ``prompt_builder``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from crit.compat.squadron import (
    InputDef,
    ReviewFinding,
    ReviewResult,
    ReviewTemplate,
    Severity,
    TemplateValidationError,
    Verdict,
    get_template,
    list_templates,
    load_template,
    register_template,
    run_review,
)

from conftest import user_text, write

# The design's markdown answer.
MARKDOWN_ANSWER = (
    "## Summary\nCONCERNS\n\nThe slice mostly fits; one boundary is crossed.\n\n## Findings\n\n"
    "### [CONCERN] Slice reaches into the storage layer\n"
    "slice.md:12 reads the users table directly instead of going through the repository.\n\n"
    "### [PASS] Dependencies point downwards\nNothing depends on the CLI.\n"
)

SYSTEM = (
    "You are an architectural reviewer.\n\nReport your findings using severity levels:\n\n"
    "## Summary\n[overall assessment: PASS | CONCERNS | FAIL]\n\n## Findings\n\n"
    "### [PASS|CONCERN|FAIL] Finding title\nDescription with specific references.\n"
)

# A template file with a Python builder, as the design's loader reads it.
TEMPLATE_YAML = """name: custom
description: "Custom review with a Python builder"
system_prompt: |
  You are an architectural reviewer.

  ## Summary
  [overall assessment: PASS | CONCERNS | FAIL]

  ## Findings

  ### [PASS|CONCERN|FAIL] Finding title
  Description.
allowed_tools: [Read, Glob, Grep]
permission_mode: bypassPermissions
setting_sources: null
inputs:
  required:
    - name: input
      description: "Document to review"
  optional:
    - name: cwd
      description: "Working directory"
      default: "."
prompt_builder: squadron_builders.custom_prompt
"""

BUILDER = '''
def custom_prompt(inputs):
    return "BUILT BY PYTHON: review {input} (and mind {{braces}})".format(**inputs)
'''


def docs(d: Path) -> None:
    write(d, "slice.md", "# Slice\n\nRead users straight from the table.\n")
    write(d, "arch.md", "# Architecture\n\nOnly repositories touch storage.\n")


def test_the_registry_lists_crits_templates_and_registered_ones(tmp_path: Path) -> None:
    names = [t.name for t in list_templates(cwd=tmp_path)]
    assert {"arch", "tasks", "code"} <= set(names)
    arch = get_template("arch", cwd=tmp_path)
    assert isinstance(arch, ReviewTemplate)
    assert [i.name for i in arch.required_inputs] == ["input", "against"]
    assert arch.allowed_tools == ["Read", "Glob", "Grep"]
    assert get_template("no-such-template", cwd=tmp_path) is None
    mine = ReviewTemplate(
        name="mine",
        description="mine",
        system_prompt=SYSTEM,
        allowed_tools=["Read"],
        permission_mode="bypassPermissions",
        setting_sources=None,
        required_inputs=[InputDef("input", "doc")],
        optional_inputs=[],
        prompt_template="Review {input}.",
    )
    register_template(mine)
    assert get_template("mine") is mine
    assert "mine" in [t.name for t in list_templates(cwd=tmp_path)]


def test_run_review_returns_the_originals_result(server, tmp_path: Path) -> None:
    d = tmp_path / "docs"
    docs(d)
    server.push({"text": MARKDOWN_ANSWER})
    template = get_template("arch", cwd=d)
    result = asyncio.run(run_review(template, {"input": "slice.md", "against": "arch.md", "cwd": str(d)}, log=False))
    assert isinstance(result, ReviewResult)
    assert result.verdict == Verdict.CONCERNS
    assert result.findings[0] == ReviewFinding(
        severity=Severity.CONCERN,
        title="Slice reaches into the storage layer",
        description="slice.md:12 reads the users table directly instead of going through the repository.",
        file_ref="slice.md:12",
    )
    assert result.findings[1].severity == Severity.PASS
    assert result.template_name == "arch"
    assert result.input_files["input"] == "slice.md"
    assert (result.has_failures, result.concern_count) == (False, 1)
    d2 = result.to_dict()
    assert list(d2) == ["verdict", "findings", "raw_output", "template_name", "input_files", "timestamp"]
    assert d2["verdict"] == "CONCERNS" and d2["raw_output"] == MARKDOWN_ANSWER
    # crit's whole result is there too.
    assert result.result is not None and result.result.passed is True


def test_a_python_prompt_builder_is_imported_and_builds_the_prompt(
    server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tmp_path / "docs"
    docs(d)
    mods = tmp_path / "mods"
    write(mods, "squadron_builders.py", BUILDER)
    monkeypatch.syspath_prepend(str(mods))
    path = write(tmp_path, "templates/custom.yaml", TEMPLATE_YAML)
    template = load_template(path)
    assert callable(template.prompt_builder)
    assert template.build_prompt({"input": "slice.md"}) == "BUILT BY PYTHON: review slice.md (and mind {braces})"
    register_template(template)
    server.push({"text": MARKDOWN_ANSWER})
    result = asyncio.run(run_review(get_template("custom"), {"input": "slice.md", "cwd": str(d)}, log=False))
    assert result.verdict == Verdict.CONCERNS
    assert "BUILT BY PYTHON: review slice.md (and mind {braces})" in user_text(server.requests()[0])


def test_the_loaders_validation(tmp_path: Path) -> None:
    both = TEMPLATE_YAML.replace("prompt_builder:", 'prompt_template: "x"\nprompt_builder:')
    with pytest.raises(TemplateValidationError, match="exactly one of prompt_template or prompt_builder"):
        load_template(write(tmp_path, "both.yaml", both))
