#!/usr/bin/env python3
"""Custom checks per language: what `reviewhost new --lang L` builds, and what it costs.

For each language (Rust, Python, TypeScript, JavaScript) this scaffolds the example
check with `reviewhost new`, builds it with the command `reviewhost new` printed last, and
prints:

  - the build's wall time and the component's size;
  - the first run's compile: `reviewhost test` on the fixtures with an empty compile
    cache (wall and CPU time), then the same warm;
  - a warm check: the CPU time of a run of 1,000 assertions of the component minus that
    of a run of one, over 999;
  - the 1,000-assertion run itself (wall, CPU, peak RSS), each assertion with its own
    `config.text`, so no two ask the same question and none is shared.

CPU time is user + system of the reviewhost process and its threads (os.wait4). The
toolchains must be installed as `.ci/authoring-tools DIR` does; pass that DIR.

Usage: python3 bench/custom_langs.py --tools target/authoring-tools [--binary PATH]
       [--langs rust,python,typescript,javascript] [--runs 3] [--jobs N]
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def measured(cmd, env, cwd=None):
    """(wall s, CPU s, peak RSS KiB, exit code) of `cmd`."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({code}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, code


def build(binary, lang, base, tools, env):
    name = f"bench-{lang}"
    out = subprocess.run([binary, "new", "--lang", lang, name], cwd=base, env=env,
                         capture_output=True, text=True, check=True)
    command = out.stdout.strip().splitlines()[-1]
    build_env = dict(env, PIP_NO_INDEX="1", PIP_FIND_LINKS=os.path.join(tools, "wheels"),
                     npm_config_offline="true",
                     PIP_DISABLE_PIP_VERSION_CHECK="1")
    start = time.perf_counter()
    subprocess.run(["sh", "-c", command], cwd=base, env=build_env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(base, name, f"{name}.wasm"), time.perf_counter() - start, os.path.join(base, name)


def corpus(base):
    """A small repository: 40 files under src/, every one licensed."""
    root = os.path.join(base, "repo")
    for i in range(40):
        path = os.path.join(root, "src", f"m{i % 5}", f"f{i}.rs")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(f"// SPDX-License-Identifier: MIT\nfn f{i}() {{}}\n" * 20)
    return root


def assertions(path, wasm, count):
    digest = hashlib.sha256(open(wasm, "rb").read()).hexdigest()
    items = [{"id": f"C-{i}", "type": "custom", "description": "licensed", "component": wasm,
              "sha256": digest, "config": {"files": ["src/**/*.rs"], "text": "SPDX-License-Identifier", "variant": i}}
             for i in range(count)]
    with open(path, "w") as f:
        json.dump({"assertions": items}, f)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True)
    parser.add_argument("--binary", default=os.path.join(REPO, "target", "release", "reviewhost"))
    parser.add_argument("--langs", default="rust,python,typescript,javascript")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="--jobs for the runs (default: reviewhost's own, all cores)")
    args = parser.parse_args()
    binary, tools = os.path.abspath(args.binary), os.path.abspath(args.tools)
    with tempfile.TemporaryDirectory() as base:
        cache = os.path.join(base, "cache")
        env = dict(os.environ, REVIEWHOST_CACHE_DIR=cache, REVIEWHOST_CACHE_KEY=os.path.join(base, "key"), CI="1")
        root = corpus(base)
        print(f"{'lang':<11} {'build s':>8} {'size MB':>8} {'cold test s (CPU)':>18} {'warm test s':>12} "
              f"{'per check ms CPU':>17} {'1,000 checks: wall s, CPU s, RSS MiB':>38}")
        for lang in args.langs.split(","):
            wasm, build_s, check_dir = build(binary, lang, base, tools, env)
            size = os.path.getsize(wasm) / 1e6
            shutil.rmtree(cache, ignore_errors=True)
            test = [binary, "test", wasm, "--fixtures", os.path.join(check_dir, "fixtures")]
            cold_wall, cold_cpu, _, _ = measured(test, env)
            warm_wall = statistics.median(measured(test, env)[0] for _ in range(args.runs))
            one = assertions(os.path.join(base, f"{lang}-1.json"), wasm, 1)
            many = assertions(os.path.join(base, f"{lang}-1000.json"), wasm, 1000)
            jobs = ["--jobs", str(args.jobs)] if args.jobs else []
            run = lambda file: [binary, "run", file, "--root", root, "--no-write", "--quiet", *jobs]
            one_cpu = statistics.median(measured(run(one), env)[1] for _ in range(args.runs))
            rows = [measured(run(many), env) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in rows)
            cpu = statistics.median(r[1] for r in rows)
            rss = max(r[2] for r in rows) / 1024
            per_check = (cpu - one_cpu) / 999 * 1000
            print(f"{lang:<11} {build_s:>8.1f} {size:>8.1f} {cold_wall:>9.1f} ({cold_cpu:>5.1f}) {warm_wall:>12.2f} "
                  f"{per_check:>17.1f} {wall:>16.2f} {cpu:>8.2f} {rss:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
