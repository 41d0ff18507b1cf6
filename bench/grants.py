#!/usr/bin/env python3
"""What a granted host program costs per check: the median duration of a command check
running `nproc` as a granted program (native, under every layer of the confinement)
against the same check running `true` in the WebAssembly sandbox, and against `nproc`
run directly by Python (a process start, no confinement).

Each run has RUNS distinct assertions (no two share an evaluation), evaluated one at a
time (`--jobs 1`); durations are the report's `duration_ms`.

Usage: python3 bench/grants.py [--binary PATH] [--runs 41]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(binary, root, command, runs, extra):
    assertions = [{"id": f"B-{i}", "type": "shell_exit_zero", "command": f"{command} # {i}"} for i in range(runs)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.json")
        with open(path, "w") as f:
            json.dump({"assertions": assertions}, f)
        out = subprocess.run(
            [binary, "run", path, "--root", root, "--no-write", "--format", "json", "--jobs", "1"] + extra,
            capture_output=True, text=True, env={**os.environ, "PATH": "/usr/bin:/bin"},
        )
    report = json.loads(out.stdout)
    statuses = {r["status"] for r in report["results"]}
    if statuses != {"pass"}:
        sys.exit(f"{command}: not every check passed ({statuses}): {out.stderr}")
    return statistics.median(r["duration_ms"] for r in report["results"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/reviewhost")
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        os.chmod(root, 0o755)
        sandboxed = run(args.binary, root, "true", args.runs, [])
        granted = run(args.binary, root, "nproc", args.runs, ["--allow-program", "nproc"])
    direct = []
    for _ in range(args.runs):
        began = time.perf_counter()
        subprocess.run(["/usr/bin/nproc"], capture_output=True, check=True)
        direct.append((time.perf_counter() - began) * 1000)
    print(f"median per check, {args.runs} checks, --jobs 1:")
    print(f"  true in the sandbox:           {sandboxed:8.2f} ms")
    print(f"  nproc granted, confined:       {granted:8.2f} ms")
    print(f"  nproc started directly:        {statistics.median(direct):8.2f} ms")


if __name__ == "__main__":
    main()
