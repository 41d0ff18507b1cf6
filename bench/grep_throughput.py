#!/usr/bin/env python3
"""Benchmark: in-sandbox grep and rg against native GNU grep and ripgrep.

Generates a ~200 MB tree of ~5,000 source-like files, then times, single-threaded and
with a warm page cache, the same searches done three ways:

  - `reviewhost run` of one grep_match assertion whose command is the search (the time
    of an assertion whose command is `true` is subtracted: process start, engine, cache);
  - native GNU grep (LC_ALL=C.UTF-8);
  - native ripgrep with -j1.

Prints medians over several runs and the ratios. Needs ripgrep (`apt-get install -y
ripgrep`) for the rg rows.

Usage: python3 bench/grep_throughput.py [--runs N] [--binary PATH] [--mb 200]
"""
import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import file_checks  # noqa: E402  (build, timed)

WORDS = ("fn let mut struct impl pub use crate self match return Some None Ok Err Vec String "
         "usize u32 config value result error handler request response buffer index count "
         "parse render update insert remove client server token stream").split()


def make_corpus(root, megabytes, files=5000):
    rng = random.Random(42)
    per_file = megabytes * 1024 * 1024 // files
    for i in range(files):
        path = os.path.join(root, f"pkg_{i % 40}", f"mod_{i % 7}", f"file_{i}.rs")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lines, size = [], 0
        while size < per_file:
            line = "    " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
            if rng.random() < 0.0005:
                line += " MockConnection::new()"
            lines.append(line)
            size += len(line) + 1
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


def timed(cmd, cwd=None, env=None):
    return file_checks.timed(cmd, env=env, cwd=cwd)


def reviewhost_cmd(binary, base, root, command, env):
    file = os.path.join(base, "a.json")
    with open(file, "w") as f:
        json.dump({"assertions": [{"id": "B", "type": "grep_match", "command": command}]}, f)
    return [binary, "run", file, "--root", root, "--no-write", "--jobs", "1", "--timeout", "60s"]


def median_of(runs, fn):
    fn()  # warm up (page cache, compiled-component cache)
    return statistics.median(fn() for _ in range(runs))


def compare_searches(binary, base, root, env, runs):
    """Prints in-sandbox searches against GNU grep and ripgrep (-j1 and all cores)."""
    baseline = median_of(runs, lambda: timed(reviewhost_cmd(binary, base, root, "true", env), env=env))
    rows = [
        ("grep -rn LITERAL .", "grep -rn MockConnection .", ["grep", "-rn", "MockConnection", "."]),
        ("grep -rnE REGEX .", r"grep -rnE 'Mock[A-Z][a-z]+::new\(' .", ["grep", "-rnE", r"Mock[A-Z][a-z]+::new\(", "."]),
        ("grep -rn MANY-HITS .", "grep -rn config .", ["grep", "-rn", "config", "."]),
        ("rg -n LITERAL", "rg -n MockConnection", ["rg", "-j1", "-n", "MockConnection"]),
        ("rg -n REGEX", r"rg -n 'Mock[A-Z][a-z]+::new\('", ["rg", "-j1", "-n", r"Mock[A-Z][a-z]+::new\("]),
    ]
    print(f"searches: median of {runs} runs, warm page cache; the sandbox searches on one thread")
    print(f"reviewhost fixed cost per run (assertion `true`): {baseline * 1000:.0f} ms, subtracted below\n")
    print(f"{'search':22} {'sandbox':>10} {'native':>10} {'ratio':>7}  native tool")
    for label, command, native in rows:
        if shutil.which(native[0]) is None:
            print(f"{label:22} skipped: {native[0]} is not installed")
            continue
        sandbox = median_of(runs, lambda: timed(reviewhost_cmd(binary, base, root, command, env), env=env))
        sandbox = max(sandbox - baseline, 1e-6)
        native_time = median_of(runs, lambda: timed(native, cwd=root, env=env))
        print(f"{label:22} {sandbox * 1000:8.0f}ms {native_time * 1000:8.0f}ms {sandbox / native_time:6.2f}x  "
              f"{' '.join(native)}")
        if native[0] == "rg":
            every = [native[0]] + native[2:]
            all_cores = median_of(runs, lambda: timed(every, cwd=root, env=env))
            print(f"{'':22} {'':>10} {all_cores * 1000:8.0f}ms {sandbox / all_cores:6.2f}x  {' '.join(every)} (all cores)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary")
    parser.add_argument("--mb", type=int, default=200)
    args = parser.parse_args()
    binary = args.binary or file_checks.build()
    base = tempfile.mkdtemp(prefix="reviewhost-grep-bench-")
    try:
        root = os.path.join(base, "root")
        make_corpus(root, args.mb)
        env = dict(os.environ, REVIEWHOST_CACHE_DIR=os.path.join(base, "cache"), LC_ALL="C.UTF-8")
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
        print(f"\ncorpus: {size / 1e6:.0f} MB in 5000 files")
        compare_searches(binary, base, root, env, args.runs)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
