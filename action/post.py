#!/usr/bin/env python3
"""The posting step of crit's GitHub Action (action.yml runs exactly this,
after the review step).

Posts the saved result on the pull request with
`crit report RESULT --post github`: the findings on lines of the diff as one
review of inline comments (with committable suggestions), the rest in one
summary comment that later runs edit, comments of fixed findings marked
resolved. The token only reaches this step, never the review.

When it posts (input `post`): `auto` on `pull_request` and
`pull_request_target` events, except a pull request from a fork on
`pull_request` (its token is read-only: use the fork-safe recipe); `true`
always; `false` never. When it does not post, or the token turns out not to
be allowed to (a 401/403/404), the findings are annotations on the diff
instead (input `annotations`: `auto` then, `true` always, `false` never) and
the job summary says why: a token without write access does not fail the
job by itself. Any other failure to post does (exit 3).

Inputs: INPUT_POST, INPUT_MAX_COMMENTS, INPUT_ANNOTATIONS, RESULT (the
review step's result), CRIT, GITHUB_TOKEN and the Actions environment.
Output: `posted` (true or false).
"""

import json
import os
import subprocess
import sys

# The action's checkout is not ours to write in.
sys.dont_write_bytecode = True

from run import append_summary, env, error_annotation, render, write_output  # noqa: E402

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")


def plan():
    """(whether to post, why not)."""
    mode = (env("INPUT_POST") or "auto").lower()
    if mode == "false":
        return False, "the `post` input is false"
    if mode == "true":
        return True, ""
    if mode != "auto":
        raise ValueError(f"post: `{mode}` is not one of auto, true, false")
    event_name = env("GITHUB_EVENT_NAME")
    if event_name not in PULL_REQUEST_EVENTS:
        return False, f"a `{event_name or 'unknown'}` event is not a pull request"
    try:
        with open(env("GITHUB_EVENT_PATH"), encoding="utf-8") as f:
            pull = json.load(f).get("pull_request") or {}
    except (OSError, ValueError) as e:
        return False, f"the event file cannot be read ({e})"
    head = ((pull.get("head") or {}).get("repo") or {}).get("full_name")
    base = ((pull.get("base") or {}).get("repo") or {}).get("full_name")
    if event_name == "pull_request" and head and base and head != base:
        return False, (
            "a pull request from a fork gets a read-only token; the fork-safe recipe "
            "posts from a job that has write access"
        )
    return True, ""


def annotate(crit, result, posted):
    """The findings as annotations, when the input asks for them."""
    mode = (env("INPUT_ANNOTATIONS") or "auto").lower()
    # `true`: the review step printed them already.
    if mode == "auto" and not posted:
        sys.stdout.write(render(crit, result, "github"))
        sys.stdout.flush()


def main():
    crit = env("CRIT") or "crit"
    result = env("RESULT")
    if not result or not os.path.exists(result):
        write_output({"posted": "false"})
        return 0  # the review step said why there is no result
    try:
        post, why_not = plan()
    except ValueError as e:
        error_annotation("crit", str(e))
        write_output({"posted": "false"})
        return 2
    if not post:
        print(f"crit: not posting on the pull request: {why_not}.", flush=True)
        annotate(crit, result, posted=False)
        write_output({"posted": "false"})
        return 0
    argv = [crit, "report", result, "--post", "github", "--format", "json", "--color", "never"]
    max_comments = env("INPUT_MAX_COMMENTS")
    if max_comments:
        argv += ["--max-comments", max_comments]
    # The result is already saved; crit's stdout is a copy of it.
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(done.stderr)
    sys.stderr.flush()
    if done.returncode == 0:
        write_output({"posted": "true"})
        return 0
    if done.returncode == 3 and "posting not permitted" in done.stderr:
        print(
            "::warning title=crit::The token may not comment on this pull request, so the "
            "findings are annotations instead. Grant `pull-requests: write` and `issues: write`, "
            "or post from a separate job (the fork-safe recipe).",
            flush=True,
        )
        append_summary(
            "> crit could not post on the pull request: the token may not comment on it "
            "(`permissions: pull-requests: write` and `issues: write` are needed). "
            "The findings are shown as annotations instead.\n"
        )
        annotate(crit, result, posted=False)
        write_output({"posted": "false"})
        return 0
    error_annotation("crit post", f"crit could not post the review (exit {done.returncode}); see the log above.")
    annotate(crit, result, posted=False)
    write_output({"posted": "false"})
    return done.returncode or 3


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - anything unexpected fails the job, loudly
        error_annotation("crit action", f"{type(e).__name__}: {e}")
        sys.exit(3)
