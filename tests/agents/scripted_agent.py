#!/usr/bin/env python3
"""A scripted agent for reviewhost's review-loop tests: plays any agent from a script.

Usage (as the argv in reviewhost.toml): scripted_agent.py SCRIPT.json
The agent's name comes from $REVIEWHOST_AGENT, its prompt from stdin. SCRIPT.json maps
agent names to lists of steps; call N of an agent plays step N (the last step repeats):

  {"response": "text printed on stdout",
   "claude": {"is_error": false, "subtype": "success", "result": "..."},   # instead of response
   "edits": {"relative/path": "new content"},   # really written, relative to the cwd (the root)
   "delete": ["relative/path"],
   "sleep": 0.0, "stderr": "", "exit": 0}

An agent without steps fails (exit 3), except the fix-diff-reviewer, which answers `[]`
(no finding): most review tests are not about it, and those that are script it.

Every prompt is kept in SCRIPT.json.calls/<agent>-<N>.prompt, and the calls are counted
there, so a test can check what each agent was asked.
"""
import json
import os
import sys
import time


def main() -> int:
    script_path = sys.argv[1]
    agent = os.environ["REVIEWHOST_AGENT"]
    with open(script_path, encoding="utf-8") as f:
        steps = json.load(f).get(agent)
    if not steps and agent == "fix-diff-reviewer":
        steps = [{"response": "[]"}]
    if not steps:
        print(f"scripted agent: no steps for {agent}", file=sys.stderr)
        return 3
    calls = script_path + ".calls"
    os.makedirs(calls, exist_ok=True)
    counter = os.path.join(calls, agent + ".count")
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    with open(counter, "w") as f:
        f.write(str(n + 1))
    prompt = sys.stdin.read()
    with open(os.path.join(calls, f"{agent}-{n + 1}.prompt"), "w", encoding="utf-8") as f:
        f.write(prompt)
    step = steps[min(n, len(steps) - 1)]
    time.sleep(step.get("sleep", 0))
    for path, content in step.get("edits", {}).items():
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
    for path in step.get("delete", []):
        os.remove(path)
    if "stderr" in step:
        print(step["stderr"], file=sys.stderr)
    if "claude" in step:
        envelope = {"type": "result", "subtype": "success", "is_error": False}
        envelope.update(step["claude"])
        print(json.dumps(envelope))
    else:
        sys.stdout.write(step.get("response", ""))
    return step.get("exit", 0)


if __name__ == "__main__":
    sys.exit(main())
