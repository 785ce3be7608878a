"""The README's Python blocks marked `<!-- runnable -->`, run as a user runs
them: as a script (no top-level `await`), from a scratch copy of the
checkout's examples (so nothing in the checkout changes), with the installed
package and no credentials."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def runnable_python_blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- runnable -->\s*```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has a runnable Python block"
    return blocks


def test_every_runnable_python_block_in_the_readme_runs_as_a_script(tmp_path):
    before = sorted(p.relative_to(ROOT) for p in (ROOT / "examples").rglob("*"))
    for i, code in enumerate(runnable_python_blocks()):
        work = tmp_path / f"block{i}"
        shutil.copytree(ROOT / "examples", work / "examples")
        script = work / "example.py"
        script.write_text(code, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(work / "home"),
            "XDG_STATE_HOME": str(work / "state"),
        }
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"block {i}:\n{code}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    after = sorted(p.relative_to(ROOT) for p in (ROOT / "examples").rglob("*"))
    assert before == after, "the checkout's examples are unchanged"
