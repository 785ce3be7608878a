"""Prompt review from Python (the prompt-review plugin's pipeline): critiques
merged into a refined prompt, and the fail-open rule."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Dict, List

import pytest

from crit import review_prompt, review_prompt_sync

from conftest import write

VAGUE = "optimize the settings page"

REFINED = (
    "Reduce settings.ts render time by extracting the browser config section into a separate component page\n\n"
    "## Constraints\n"
    "- Follow the existing functional style in src/: pure functions, named exports, no classes\n\n"
    "## Guardrails\n"
    "- Never commit .env or expose ANTHROPIC_API_KEY in generated code\n\n"
    "## Acceptance criteria\n"
    "- Run npm run test after changes. All existing tests must pass."
)


def critique(role: str, findings: List[Dict[str, Any]]) -> Dict[str, Any]:
    none = not findings
    return {"reviewer_role": role, "severity_max": "nit" if none else "major", "confidence": 0.9,
            "findings": findings, "no_issues": none}


def finding(id: str, severity: str, evidence: str, op: str, value: str) -> Dict[str, Any]:
    return {"id": id, "severity": severity, "confidence": 0.8, "issue": f"{id}: the prompt is vague",
            "evidence": evidence, "suggested_ops": [{"op": op, "target": "constraints", "value": value}]}


PANEL = [
    ("Domain SME", critique("domain_sme", [finding("SME-001", "major", "settings page", "AddConstraint",
        "Follow the existing functional style in src/: pure functions, named exports, no classes")])),
    ("Security", critique("security", [finding("SEC-001", "major", "", "AddGuardrail",
        "Never commit .env or expose ANTHROPIC_API_KEY in generated code")])),
    ("Clarity", critique("clarity", [finding("CLR-001", "minor", "optimize the settings", "ReplaceVague",
        "Reduce settings.ts render time by extracting the browser config section into a separate component")])),
    ("Testing", critique("testing", [finding("TST-001", "minor", "", "AddAcceptanceCriteria",
        "Run npm run test after changes. All existing tests must pass.")])),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "web"
    write(d, "package.json", '{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5","vitest":"1"}}')
    write(d, "src/settings.ts", "export const x = 1;\n")
    monkeypatch.setenv("PROMPT_REVIEW_MODE", "api")
    return d


def test_critiques_become_one_refined_prompt(server, project: Path) -> None:
    for label, answer in PANEL:
        server.push({"when_contains": f"You are the {label} reviewer", "reply": {"json": answer, "usage": [700, 120, 0, 0]}})
    result = asyncio.run(review_prompt(VAGUE, cwd=project, cache=False))
    assert result.review == "prompt"
    assert result.verdict == "CONCERNS"
    assert result.prompt is not None
    assert result.prompt.original == VAGUE
    assert result.prompt.refined == REFINED
    assert result.prompt.status == "refined"
    assert "-optimize the settings page\n" in result.prompt.diff
    # The host decides between the two: nothing is chosen for it.
    assert result.prompt.chosen is None
    assert {f.title.split(":")[0] for f in result.findings} >= {"SEC-001", "CLR-001"}
    assert result.usage.input_tokens == 4 * 700


def test_it_fails_open_loudly_without_a_backend(project: Path) -> None:
    result = review_prompt_sync(VAGUE, cwd=project, cache=False)
    assert result.prompt is not None
    assert result.prompt.status == "failed_open"
    assert result.prompt.chosen == VAGUE
    assert result.verdict == "ERROR" and not result.passed
    assert result.parse_error and result.prompt.warnings


def test_python_reviews_a_prompt_with_the_settings_crit_prompt_uses(server, project: Path) -> None:
    # One trusted project, two doors: `crit prompt` and Python ask the model
    # the project's prompt-review settings name, and keep to its budget's cap
    # on reviewers (the binary's tests/crit/settings_everywhere_prompt.rs holds
    # the `!!!` hook and a library caller to the same).
    import json
    import subprocess

    from conftest import git, init_repo

    init_repo(project)
    write(project, ".crit/prompt-review.yaml", "models:\n  reviewer: claude-opus-4-1\nbudget:\n  max_reviewers_per_call: 2\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    subprocess.run(["crit", "trust", "--yes"], cwd=project, check=True, capture_output=True)

    def script() -> None:
        for label, answer in PANEL:
            server.push({"when_contains": f"You are the {label} reviewer", "reply": {"json": answer}})

    def asked(since: int) -> List[str]:
        """The models the panel's reviewers were asked on."""
        return sorted(
            r["body"]["model"]
            for r in server.requests()[since:]
            if any(f"You are the {label} reviewer" in json.dumps(r["body"]) for label, _ in PANEL)
        )

    script()
    out = subprocess.run(["crit", "prompt", "--json", VAGUE], cwd=project, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    cli = asked(0)
    seen = len(server.requests())

    script()
    review_prompt_sync(VAGUE, cwd=project, cache=False)
    py = asked(seen)

    assert cli == py
    assert cli == ["claude-opus-4-1", "claude-opus-4-1"], cli
