"""One review's fixed cost from Python: `Crit.review_sync` (an orchestrator
with no tools) and `AgentReviewer` (a code review of a one-commit range, git
included) against crit-fake-server, which answers at once, so the time is
crit's own plus a loopback round trip. Prints the median and p90 of N runs
and this process's peak RSS. Run by benches/python.sh."""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import crit

N = int(os.environ.get("N", "50"))
ANSWER = {"verdict": "PASS", "findings": []}


def git(d, *args):
    subprocess.run(["git", *args], cwd=d, check=True, capture_output=True)


def main() -> None:
    server = subprocess.Popen([os.environ["CRIT_FAKE_SERVER"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = json.loads(server.stdout.readline())["url"]

    def push(n):
        server.stdin.write(json.dumps({"op": "push", "steps": [{"json": ANSWER}] * n}) + "\n")
        server.stdin.flush()
        server.stdout.readline()

    work = tempfile.mkdtemp()
    os.environ.update(HOME=work, XDG_STATE_HOME=work + "/state", ANTHROPIC_API_KEY="sk-ant-bench",
                      ANTHROPIC_BASE_URL=url, GIT_CONFIG_NOSYSTEM="1")
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "base")
    with open(os.path.join(repo, "app.py"), "w") as f:
        f.write("print('hi')\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "change")

    c = crit.Crit({"prompt": "You review.", "allowed_tools": [], "cwd": repo, "logging": {"enabled": False}})
    reviewer = crit.AgentReviewer(repo, log=False)
    for name, run in [("Crit.review_sync", lambda: c.review_sync("Review app.py")),
                      ("AgentReviewer (git diff + review)", lambda: reviewer.review_sync(diff_range="HEAD~1..HEAD"))]:
        push(N + 3)
        for _ in range(3):
            run()
        times = []
        for _ in range(N):
            t = time.perf_counter()
            r = run()
            times.append((time.perf_counter() - t) * 1000)
            assert r.passed, r
        times.sort()
        print(f"{name}: median {statistics.median(times):.1f} ms, p90 {times[int(N * 0.9)]:.1f} ms over {N} runs")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    server.stdin.close()
    server.wait()


if __name__ == "__main__":
    sys.exit(main())
