#!/usr/bin/env python3
"""Benchmark: `reviewhost run` on 1,000 file checks and 1,000 command checks, against the
seed's runner.

Builds the release binary, generates a tree of 1,000 source-like files, an assertions
file of 1,000 file_exists / file_content assertions (a quarter of them failing) and one
of 1,000 grep_match / grep_not_match commands on those files, then prints medians over
several runs:

  - reviewhost, warm cache, default --jobs and --jobs 1: total and per assertion
  - reviewhost, cold cache (first run compiles the fs component)
  - peak RSS of a warm run
  - the seed's run-assertions.sh (extracted at run time from
    ../shared/seeds/000_531c74a546acc2cb.txt, not kept as code of ours) on the same file

Usage: python3 bench/file_checks.py [--runs N] [--binary PATH]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SEED = os.path.join(REPO, "..", "shared", "seeds", "000_531c74a546acc2cb.txt")
N = 1000


def build():
    subprocess.run(["rustup", "target", "add", "wasm32-wasip2"], check=True, capture_output=True)
    subprocess.run(["cargo", "build", "--release", "-p", "reviewhost"], check=True, cwd=REPO)
    return os.path.join(REPO, "target", "release", "reviewhost")


def make_corpus(base):
    root = os.path.join(base, "root")
    assertions = []
    for i in range(N):
        rel = f"src/mod_{i % 50}/file_{i}.rs"
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        body = "".join(f"fn item_{i}_{j}(x: u32) -> u32 {{ x * {j} + {i} }}\n" for j in range(60))
        with open(path, "w") as f:
            f.write(f"// SPDX-License-Identifier: MIT\n{body}")
        if i % 2 == 0:
            target = rel if i % 4 != 2 else rel + ".missing"
            assertions.append({"id": f"B-{i}", "type": "file_exists", "description": "exists", "path": target,
                               "status": None, "failure_output": None})
        else:
            needle = f"fn item_{i}_59" if i % 4 != 3 else "unsafe {"
            assertions.append({"id": f"B-{i}", "type": "file_content", "description": "content", "path": rel,
                               "needle": needle, "status": None, "failure_output": None})
    commands = []
    for i in range(N):
        rel = f"src/mod_{i % 50}/file_{i}.rs"
        if i % 2 == 0:
            commands.append({"id": f"C-{i}", "type": "grep_match", "description": "present",
                             "command": f"grep -n 'fn item_{i}_59' {rel}", "status": None, "failure_output": None})
        else:
            commands.append({"id": f"C-{i}", "type": "grep_not_match", "description": "absent",
                             "command": f"grep -rn 'unsafe {{' src/mod_{i % 50}/", "status": None,
                             "failure_output": None})
    files = []
    for name, items in (("assertions.json", assertions), ("commands.json", commands)):
        doc = {"plugin": "bench", "max_passes": 5, "current_pass": 1, "assertions": items,
               "confidence": {"passed": 0, "total": 0, "score": 0.0}}
        files.append(os.path.join(base, name))
        with open(files[-1], "w") as f:
            json.dump(doc, f, indent=2)
    return root, files[0], files[1]


def timed(cmd, env=None, cwd=None):
    """Wall time of `cmd`. Its output goes to a real file, not /dev/null (GNU grep stops
    at the first match when it sees /dev/null), and stdin is /dev/null (ripgrep without
    a path searches a piped stdin instead of the directory, as in a CI job)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        r = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    if r.returncode not in (0, 1):
        sys.exit(f"{cmd[0]} failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
    return elapsed


def peak_rss_kib(cmd, env):
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1])


def seed_runner(base):
    text = open(SEED).read()
    start = text.index("Create `plugins/plugin-review/scripts/run-assertions.sh`**")
    block = re.search(r"```bash\n(.*?)\n```", text[start:], re.S).group(1)
    path = os.path.join(base, "run-assertions.sh")
    with open(path, "w") as f:
        f.write(block + "\n")
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--binary", help="a reviewhost binary to use instead of building target/release/reviewhost")
    args = parser.parse_args()
    binary = args.binary or build()
    base = tempfile.mkdtemp(prefix="reviewhost-bench-")
    try:
        root, file, commands = make_corpus(base)
        cache = os.path.join(base, "cache")
        env = dict(os.environ, REVIEWHOST_CACHE_DIR=cache)
        cmd = [binary, "run", file, "--root", root, "--no-write"]

        cold = timed(cmd, env)  # compiles the fs component into the empty cache
        warm = [timed(cmd, env) for _ in range(args.runs)]
        one_job = [timed(cmd + ["--jobs", "1"], env) for _ in range(args.runs)]
        rss = peak_rss_kib(cmd, env)

        runner = seed_runner(base)

        def seed(source):
            times = []
            for _ in range(max(3, args.runs // 2)):
                copy = os.path.join(base, "seed-copy.json")
                shutil.copy(source, copy)
                times.append(timed(["bash", runner], env=dict(os.environ, ASSERTIONS_FILE=copy), cwd=root))
            return statistics.median(times)

        seed_times = [seed(file)]
        command_cmd = [binary, "run", commands, "--root", root, "--no-write"]
        timed(command_cmd, env)  # compiles the shell component into the cache
        command_runs = statistics.median(timed(command_cmd, env) for _ in range(args.runs))
        seed_commands = seed(commands)

        cores = os.cpu_count()
        m, m1, ms = statistics.median(warm), statistics.median(one_job), statistics.median(seed_times)
        print(f"\n{N} file checks, {cores} cores, median of {args.runs} runs")
        print(f"  reviewhost, warm cache, --jobs {cores}: {m * 1000:8.1f} ms total, {m / N * 1e6:7.1f} us/assertion")
        print(f"  reviewhost, warm cache, --jobs 1:  {m1 * 1000:8.1f} ms total, {m1 / N * 1e6:7.1f} us/assertion")
        print(f"  reviewhost, cold cache (1 run):    {cold * 1000:8.1f} ms total")
        print(f"  reviewhost peak RSS (warm):        {rss / 1024:8.1f} MiB")
        print(f"  seed run-assertions.sh (python):   {ms * 1000:8.1f} ms total, {ms / N * 1e6:7.1f} us/assertion")
        print(f"  ratio seed / reviewhost:           {ms / m:8.2f}x")
        print(f"\n{N} command checks (grep -n FILE / grep -rn DIR), median of {args.runs} runs")
        print(f"  reviewhost, --jobs {cores}:             {command_runs * 1000:8.1f} ms total, "
              f"{command_runs / N * 1e6:7.1f} us/assertion")
        print(f"  seed run-assertions.sh (bash+python): {seed_commands * 1000:8.1f} ms total, "
              f"{seed_commands / N * 1e6:7.1f} us/assertion")
        print(f"  ratio seed / reviewhost:           {seed_commands / command_runs:8.2f}x")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
