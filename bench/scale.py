#!/usr/bin/env python3
"""reviewhost run at CI scale: 1,000, 10,000 and 100,000 assertions, half of them failing.

For each size it prints the wall time of the run alone (`--no-write`, text report to a
file), of the run with the write-back, and of each report format (run without the
write-back, the format to a file; minus the run alone), and checks GitHub's limits on
the SARIF file (at most 25,000 rules and results), the annotations (10 per kind) and the
step summary (under 1 MiB).

The assertions are `file_exists` checks of files that exist or not, so the figures are
the host's own cost per assertion: loading, planning, write-back and report writing.

Usage: python3 bench/scale.py [--binary PATH] [--sizes 1000,10000,100000]
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import file_checks  # noqa: E402  (build, timed)

FORMATS = ["json", "junit", "sarif", "github", "codequality", "rdjson"]


def make(base, n):
    root = os.path.join(base, "root")
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    for i in range(0, 50):
        open(os.path.join(root, "src", f"f{i}.rs"), "w").write("fn f() {}\n")
    items = [
        {"id": f"A-{i}", "type": "file_exists", "description": f"file {i % 100} exists",
         "path": f"src/f{i % 100}.rs"}
        for i in range(n)
    ]
    path = os.path.join(base, "assertions.json")
    with open(path, "w") as f:
        json.dump({"assertions": items}, f, indent=2)
    return root, path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary")
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    binary = args.binary or file_checks.build()
    print(f"{'assertions':>10} {'run':>8} {'+write':>8} " + " ".join(f"{f:>8}" for f in FORMATS) + "  (seconds)")
    for n in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as base:
            root, path = make(base, n)
            out = os.path.join(base, "report")
            run = [binary, "run", path, "--root", root, "--quiet"]
            alone = file_checks.timed(run + ["--no-write"])
            write = file_checks.timed(run) - alone
            env = dict(os.environ, GITHUB_STEP_SUMMARY=os.path.join(base, "summary.md"))
            times = []
            for fmt in FORMATS:
                times.append(file_checks.timed(run + ["--no-write", "--format", fmt, "--output", out], env=env) - alone)
                if fmt == "sarif":
                    sarif = json.load(open(out))["runs"][0]
                    assert len(sarif["tool"]["driver"]["rules"]) <= 25000 and len(sarif["results"]) <= 25000
                if fmt == "github":
                    lines = open(out).read().splitlines()
                    assert sum(1 for l in lines if l.startswith("::error")) <= 10, "annotations over the cap"
                    assert os.path.getsize(env["GITHUB_STEP_SUMMARY"]) < 1 << 20, "summary over 1 MiB"
            print(f"{n:>10} {alone:>8.2f} {write:>8.2f} " + " ".join(f"{t:>8.2f}" for t in times))


if __name__ == "__main__":
    main()
