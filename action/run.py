#!/usr/bin/env python3
"""The review step of crit's GitHub Action (action.yml runs exactly this).

Runs `crit review TEMPLATE` with the action's inputs and saves the result,
then renders it as SARIF (code scanning), rdjson (reviewdog), annotations
(workflow commands) and a job summary (markdown), sets the step's outputs
(verdict, passed, findings, cost-usd, result, sarif, rdjson) and exits with
crit's status: 0 passed, 1 the gate failed, 2 a usage or configuration
error, 3 the review could not run. Standard library only; Python 3.8+.

Inputs come from the environment, as the composite action passes them:
INPUT_TEMPLATE, INPUT_FAIL_ON, INPUT_PROVIDER, INPUT_MODEL, INPUT_ARGS,
INPUT_ANNOTATIONS, and CRIT (the binary; default `crit` on PATH).
"""

import json
import os
import shlex
import subprocess
import sys
import uuid

FAIL_ON = ("p0", "p1", "p2", "p3", "concerns", "never")


def env(name, default=""):
    return os.environ.get(name, default).strip()


def write_output(values):
    """Step outputs in the runner's multi-line form, which no value can break."""
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for key, value in values.items():
            delimiter = "ghadelimiter_" + uuid.uuid4().hex
            f.write(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")


def append_summary(markdown):
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(markdown)
            if not markdown.endswith("\n"):
                f.write("\n")


def error_annotation(title, message):
    esc = lambda s: s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    prop = lambda s: esc(s).replace(":", "%3A").replace(",", "%2C")
    print(f"::error title={prop(title)}::{esc(message)}", flush=True)


def render(crit, result, fmt, out=None):
    """`crit report RESULT --format FMT` (crit redacts what it writes)."""
    argv = [crit, "report", result, "--format", fmt, "--color", "never"]
    if out:
        argv += ["--out", out]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"crit report --format {fmt}: {done.stderr.strip()}")
    return done.stdout


def main():
    crit = env("CRIT") or "crit"
    template = env("INPUT_TEMPLATE") or "code"
    fail_on = (env("INPUT_FAIL_ON") or "p1").lower()
    if fail_on not in FAIL_ON:
        error_annotation("crit", f"fail-on: `{fail_on}` is not one of {', '.join(FAIL_ON)}")
        write_output({"verdict": "ERROR", "passed": "false", "findings": "0", "cost-usd": "0"})
        return 2
    try:
        extra = shlex.split(env("INPUT_ARGS"))
    except ValueError as e:
        error_annotation("crit", f"args: {e}")
        write_output({"verdict": "ERROR", "passed": "false", "findings": "0", "cost-usd": "0"})
        return 2

    out_dir = os.path.join(env("RUNNER_TEMP") or os.getcwd(), "crit")
    os.makedirs(out_dir, exist_ok=True)
    result = os.path.join(out_dir, "result.json")
    if os.path.exists(result):
        os.remove(result)

    argv = [crit, "review", template, *extra, "--format", "json", "--out", result,
            "--fail-on", fail_on, "--color", "never"]
    for flag, value in (("--provider", env("INPUT_PROVIDER")), ("--model", env("INPUT_MODEL"))):
        if value:
            argv += [flag, value]
    print("crit: " + " ".join(shlex.quote(a) for a in argv[1:]), flush=True)
    status = subprocess.run(argv).returncode

    if not os.path.exists(result):
        # crit said why on stderr (shown in the log); the job must not pass.
        message = f"crit exited with status {status} before writing a result; see the log above."
        error_annotation(f"crit {template}", message)
        append_summary(f"## crit {template}: ERROR\n\n{message}\n")
        write_output({"verdict": "ERROR", "passed": "false", "findings": "0", "cost-usd": "0"})
        return status if status != 0 else 3

    with open(result, encoding="utf-8") as f:
        doc = json.load(f)
    sarif = os.path.join(out_dir, "crit.sarif")
    rdjson = os.path.join(out_dir, "crit.rdjson")
    render(crit, result, "sarif", sarif)
    render(crit, result, "rdjson", rdjson)
    # `auto`: the posting step prints them when the review is not posted.
    if env("INPUT_ANNOTATIONS", "auto").lower() == "true":
        sys.stdout.write(render(crit, result, "github"))
        sys.stdout.flush()
    append_summary(render(crit, result, "markdown"))
    write_output({
        "verdict": doc.get("verdict", "UNKNOWN"),
        "passed": "true" if doc.get("passed") is True else "false",
        "findings": str(len(doc.get("findings") or [])),
        "cost-usd": f"{float(doc.get('cost_usd') or 0):.6f}",
        "result": result,
        "sarif": sarif,
        "rdjson": rdjson,
    })
    # A gate that passed with a result that says otherwise is not a pass.
    if status == 0 and doc.get("passed") is not True:
        return 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - anything unexpected fails the job, loudly
        error_annotation("crit action", f"{type(e).__name__}: {e}")
        sys.exit(3)
