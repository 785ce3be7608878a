"""The pytest suite of crit's Python package, run by .ci/python-tests against
the installed wheel. LLM behaviour comes from crit-testkit's fake Anthropic
server (the `crit-fake-server` program, real wire format); git from real
temporary repositories. Nothing of crit's own is mocked."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional

import pytest


class FakeServer:
    """crit-testkit's scripted fake model server, driven over stdin/stdout."""

    def __init__(self) -> None:
        program = os.environ.get("CRIT_FAKE_SERVER", "")
        if not program or not os.access(program, os.X_OK):
            pytest.fail(
                "CRIT_FAKE_SERVER must name the crit-fake-server program "
                "(cargo build -p crit-testkit --bin crit-fake-server); .ci/python-tests sets it"
            )
        self.proc = subprocess.Popen(
            [program],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.url = self._read()["url"]

    def _read(self) -> Dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("crit-fake-server ended")
        answer = json.loads(line)
        if "error" in answer:
            raise ValueError(answer["error"])
        return answer

    def _ask(self, cmd: Dict[str, Any]) -> Dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def push(self, *steps: Dict[str, Any]) -> None:
        self._ask({"op": "push", "steps": list(steps)})

    def requests(self) -> List[Dict[str, Any]]:
        """Model requests (Anthropic Messages), in arrival order."""
        return [
            r
            for r in self._ask({"op": "requests"})["requests"]
            if r["path"].endswith("/messages")
        ]

    def remaining(self) -> int:
        return self._ask({"op": "remaining"})["remaining"]

    def gitlab(self, **merge_request: Any) -> Dict[str, Any]:
        """Starts crit-testkit's GitLab stand-in (once) serving this merge
        request: its API URL, project id and token."""
        return self._ask({"op": "gitlab", **merge_request})

    def discussions(self, iid: int) -> List[Dict[str, Any]]:
        """The GitLab stand-in's discussions on merge request ``iid``."""
        return self._ask({"op": "discussions", "iid": iid})["discussions"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "stress: a long run, skipped unless CRIT_STRESS=1 (.ci/run sets it)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    if os.environ.get("CRIT_STRESS", "") not in ("", "0"):
        return
    skip = pytest.mark.skip(reason="a stress test: CRIT_STRESS=1 runs it (.ci/run does)")
    for item in items:
        if "stress" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def server() -> Iterable[FakeServer]:
    s = FakeServer()
    yield s
    s.close()


# Variables that would point crit elsewhere than the fake server, or put it in
# CI mode (project settings read from a pull request's base).
_CLEARED = [
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BITBUCKET_BUILD_NUMBER",
    "BUILDKITE",
    "CIRCLECI",
    "JENKINS_URL",
    "TF_BUILD",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
]

API_KEY = "sk-ant-python-test-0123456789"


@pytest.fixture(autouse=True)
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Every test gets its own HOME and state, no CI variables, no CRIT_*."""
    for k in list(os.environ):
        if k.startswith("CRIT_") and k != "CRIT_FAKE_SERVER":
            monkeypatch.delenv(k)
    for k in _CLEARED:
        monkeypatch.delenv(k, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    if "server" in request.fixturenames:
        s = request.getfixturevalue("server")
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", s.url)


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def init_repo(d: Path) -> None:
    git(d, "init", "-q", "-b", "main")
    git(d, "config", "user.name", "Test")
    git(d, "config", "user.email", "test@example.com")
    git(d, "config", "commit.gpgsign", "false")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with conventions, and a branch `feature` checked out with
    one commit on top of `main` that changes src/api/users.py."""
    d = tmp_path / "repo"
    d.mkdir()
    init_repo(d)
    write(d, "CLAUDE.md", "# Conventions\nErrors are returned, never raised past the handler.\n")
    write(d, "src/api/users.py", "def get(id):\n    return db.find(id)\n")
    git(d, "add", "-A")
    git(d, "commit", "-q", "-m", "base")
    git(d, "checkout", "-q", "-b", "feature")
    write(
        d,
        "src/api/users.py",
        "def get(id):\n    user = db.find(id)\n    audit(id)\n    return user.name\n",
    )
    git(d, "commit", "-q", "-am", "audit reads")
    return d


def system_text(req: Dict[str, Any]) -> str:
    system = req["body"].get("system", "")
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system)
    return system


def user_text(req: Dict[str, Any]) -> str:
    """Every text the request's messages carry (tool results included)."""
    out: List[str] = []
    for m in req["body"].get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for b in content or []:
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                if isinstance(c, str):
                    out.append(c)
                else:
                    out.extend(x.get("text", "") for x in c or [])
    return "\n".join(out)


def wait_for(what: str, check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended: its state in /proc is Z)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def findings_answer(verdict: str = "FAIL", findings: Optional[list] = None) -> Dict[str, Any]:
    """mala's reviewer output schema."""
    return {
        "verdict": verdict,
        "findings": findings
        if findings is not None
        else [
            {
                "file_path": "src/main.py",
                "line_start": 42,
                "line_end": 42,
                "priority": 1,
                "title": "[P1] Issue",
                "body": "Details",
            }
        ],
    }
