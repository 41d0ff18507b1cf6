#!/usr/bin/env python3
"""The whole comparison in one run: reviewhost against the seed's runner, GNU grep and
ripgrep, on one generated corpus.

  1. Generates ~200 MB of source-like text in ~5,000 files (bench/grep_throughput.py's
     corpus) and two assertions files, of 200 and of 1,000 assertions, mixing all six
     types with the commands analysts write (scoped and whole-tree grep -rn, grep -rnE,
     rg with globs, file checks, test/[, a typescript_compile that needs npx).
  2. Times `reviewhost run` (warm cache, all cores) and the seed's run-assertions.sh
     (extracted from ../shared/seeds/000_531c74a546acc2cb.txt at run time) on each file,
     checks that both reach the same verdict (pass / not pass) on every assertion, and
     prints medians, the ratio and reviewhost's peak RSS; plus the cold-cache run and the
     time from process start to the first check (a one-assertion file).
  3. Times in-sandbox grep -rn / grep -rnE / rg against native GNU grep and ripgrep, with
     ripgrep both single-threaded and on all cores.

  0. First, the tree mix: 200 assertions on a 46 MB, 800-file tree, 10% of them
     whole-tree greps with distinct literals, the rest file checks and scoped searches;
     reviewhost with and without the searches' shared first pass, the seed runner, and
     bash + GNU grep as many at a time as there are cores (medians of alternating runs).

Usage: python3 bench/compare.py [--runs N] [--binary PATH] [--mb 200] [--tree-mix-only]
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import file_checks  # noqa: E402  (build, seed_runner, timed, peak_rss_kib)
import grep_throughput  # noqa: E402  (make_corpus, search rows)


def mixed_assertions(count):
    """`count` assertions in the proportions an analyst pass produces."""
    items = []
    for i in range(count):
        pkg, mod, f = i % 40, i % 7, (i * 7919) % 5000
        path = f"pkg_{f % 40}/mod_{f % 7}/file_{f}.rs"
        kind = i % 20
        if kind in (0, 1):
            a = {"type": "file_exists", "path": path if kind == 0 else path + ".orig"}
        elif kind in (2, 3):
            a = {"type": "file_content", "path": path, "needle": "config" if kind == 2 else "unsafe {"}
        elif kind in (4, 5, 6, 7):
            a = {"type": "grep_not_match", "command": f"grep -rn 'unsafe {{' pkg_{pkg}/mod_{mod}/"}
        elif kind == 8:
            a = {"type": "grep_not_match", "command": "grep -rn 'MockConnection' ."}
        elif kind == 9:
            a = {"type": "grep_not_match", "command": f"grep -rnE 'todo!\\(|unimplemented!\\(' pkg_{pkg}/"}
        elif kind in (10, 11):
            a = {"type": "grep_match", "command": f"grep -rln 'MockConnection' pkg_{pkg}/"}
        elif kind in (12, 13):
            a = {"type": "grep_match", "command": f"rg -n 'handler [a-z]+ request' pkg_{pkg} --glob '!**/mod_3/**'"}
        elif kind == 14:
            a = {"type": "grep_match", "command": "rg -l 'Mock[A-Z][a-z]+::new' ."}
        elif kind in (15, 16):
            a = {"type": "shell_exit_zero", "command": f"test -f {path} && grep -q 'fn' {path}"}
        elif kind == 17:
            a = {"type": "shell_exit_zero", "command": f"[ -d pkg_{pkg}/mod_{mod} ] && ls pkg_{pkg}/mod_{mod} | wc -l"}
        elif kind == 18:
            a = {"type": "grep_match", "command": f"grep -c 'return' {path}"}
        else:
            a = {"type": "typescript_compile", "command": "cd web && npx tsc --noEmit 2>&1"}
        a = {"id": f"M-{i:04}", "description": a["type"], **a, "status": None, "failure_output": None}
        items.append(a)
    return {"plugin": "bench", "max_passes": 5, "current_pass": 1, "assertions": items,
            "confidence": {"passed": 0, "total": 0, "score": 0.0}}


def tree_mix(count, root):
    """`count` assertions as an analyst writes them over one source tree: 10% whole-tree
    `grep -rn LITERAL src/` with a distinct literal each (a quarter of them planted in
    one file, so they match), the rest file checks and searches of one package or
    module. Plants the literals under `root`."""
    items = []
    for i in range(count):
        pkg, mod, f = i % 40, i % 7, (i * 7919) % 800
        path = f"src/pkg_{f % 40}/mod_{f % 7}/file_{f}.rs"
        kind = i % 10
        if kind == 0:
            literal = f"LegacyHandler{i:04}"
            if (i // 10) % 4 == 0:
                with open(os.path.join(root, path), "a") as out:
                    out.write(f"    // {literal} kept for the old clients\n")
                a = {"type": "grep_match", "command": f"grep -rn '{literal}' src/"}
            else:
                a = {"type": "grep_not_match", "command": f"grep -rn '{literal}' src/"}
        elif kind in (1, 2):
            a = {"type": "file_exists", "path": path if kind == 1 else path + ".orig"}
        elif kind == 3:
            a = {"type": "file_content", "path": path, "needle": "handler"}
        elif kind in (4, 5):
            a = {"type": "grep_not_match", "command": f"grep -rn 'unsafe {{' src/pkg_{pkg}/mod_{mod}/"}
        elif kind == 6:
            a = {"type": "grep_match", "command": f"grep -rln 'MockConnection' src/pkg_{pkg}/"}
        elif kind == 7:
            a = {"type": "grep_match", "command": f"rg -n 'handler [a-z]+ request' src/pkg_{pkg}"}
        elif kind == 8:
            a = {"type": "shell_exit_zero", "command": f"test -f {path} && grep -q 'fn' {path}"}
        else:
            a = {"type": "grep_match", "command": f"grep -c 'return' {path}"}
        items.append({"id": f"T-{i:04}", "description": a["type"], **a, "status": None, "failure_output": None})
    return {"plugin": "bench", "max_passes": 5, "current_pass": 1, "assertions": items,
            "confidence": {"passed": 0, "total": 0, "score": 0.0}}


def native_command(a):
    """The assertion as bash and GNU tools would run it natively."""
    if a["type"] == "file_exists":
        return f"test -e '{a['path']}'"
    if a["type"] == "file_content":
        return f"grep -qF -- '{a['needle']}' '{a['path']}'"
    return a["command"]


def native_parallel(doc, root, env, jobs):
    """Every assertion's command run by bash, `jobs` at a time: the wall time."""
    import concurrent.futures
    import subprocess
    import time

    def one(a):
        subprocess.run(["bash", "-c", native_command(a)], cwd=root, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, doc["assertions"]))
    return time.perf_counter() - start


def tree_mix_comparison(binary, base, env, runs, seed, count=200):
    """The mix of `tree_mix` on a 46 MB, 800-file tree: reviewhost with and without the
    searches' shared first pass, the seed runner, and bash + GNU grep as many at a time
    as there are cores; medians of alternating runs; verdicts compared."""
    root = os.path.join(base, "tree")
    grep_throughput.make_corpus(os.path.join(root, "src"), 46, files=800)
    doc = tree_mix(count, root)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    path = os.path.join(base, "tree-mix.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    cores = os.cpu_count()
    ours = os.path.join(base, "tree-ours.json")
    plain = os.path.join(base, "tree-plain.json")
    theirs = os.path.join(base, "tree-seed.json")
    run = [binary, "run", ours, "--root", root, "--timeout", "60s"]
    run_plain = [binary, "run", plain, "--root", root, "--timeout", "60s", "--no-prefilter"]
    for file in (ours, plain):
        shutil.copy(path, file)
    file_checks.timed(run, env)  # warm: page cache, compiled components
    times = {"reviewhost": [], "no prefilter": [], "seed": [], "native": []}
    for _ in range(runs):
        shutil.copy(path, ours)
        times["reviewhost"].append(file_checks.timed(run, env))
        shutil.copy(path, plain)
        times["no prefilter"].append(file_checks.timed(run_plain, env))
        shutil.copy(path, theirs)
        times["seed"].append(file_checks.timed(["bash", seed], env=dict(env, ASSERTIONS_FILE=theirs), cwd=root))
        times["native"].append(native_parallel(doc, root, env, cores))
    median = {k: statistics.median(v) for k, v in times.items()}
    a, b, c = statuses(ours), statuses(plain), statuses(theirs)
    differ = sorted(i for i in a if a[i] != b[i] or a[i] != c[i])
    verdicts = "identical" if not differ else f"{len(differ)} differ: {', '.join(differ[:8])}"
    print(f"\ntree mix: {count} assertions, 10% whole-tree greps with distinct literals, on "
          f"{size / 1e6:.0f} MB in 800 files; {cores} cores; medians of {runs} alternating runs")
    for name, label in (("reviewhost", "reviewhost run"), ("no prefilter", "reviewhost run --no-prefilter"),
                        ("seed", "seed runner"), ("native", f"bash + GNU grep, {cores} at a time")):
        print(f"  {label:34} {median[name] * 1000:8.0f} ms  {median[name] / median['reviewhost']:6.2f}x reviewhost")
    print(f"  verdicts (with / without the first pass / seed): {verdicts}")
    return median, differ


def statuses(path):
    with open(path) as f:
        return {a["id"]: a.get("status") == "pass" for a in json.load(f)["assertions"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary")
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--tree-mix-only", action="store_true",
                        help="only the 46 MB tree mix (the searches' shared first pass)")
    args = parser.parse_args()
    binary = args.binary or file_checks.build()
    base = tempfile.mkdtemp(prefix="reviewhost-compare-")
    try:
        cache = os.path.join(base, "cache")
        env = dict(os.environ, REVIEWHOST_CACHE_DIR=cache, LC_ALL="C.UTF-8")
        tree_mix_comparison(binary, base, env, args.runs, file_checks.seed_runner(base))
        if args.tree_mix_only:
            return
        root = os.path.join(base, "root")
        grep_throughput.make_corpus(root, args.mb)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
        nfiles = sum(len(fs) for _, _, fs in os.walk(root))
        seed = file_checks.seed_runner(base)
        cores = os.cpu_count()
        print(f"\ncorpus: {size / 1e6:.0f} MB in {nfiles} files; {cores} cores; medians of {args.runs} runs")

        one = os.path.join(base, "one.json")
        for label, assertion in (("one file_exists", {"id": "T", "type": "file_exists", "path": "pkg_0"}),
                                 ("one command", {"id": "T", "type": "shell_exit_zero", "command": "test -d pkg_0"})):
            with open(one, "w") as f:
                json.dump({"assertions": [assertion]}, f)
            first = [binary, "run", one, "--root", root, "--no-write"]
            shutil.rmtree(cache, ignore_errors=True)
            cold = file_checks.timed(first, env)
            start = statistics.median(file_checks.timed(first, env) for _ in range(args.runs))
            print(f"process start to first check ({label}): cold cache {cold * 1000:.0f} ms, "
                  f"warm {start * 1000:.0f} ms")

        print(f"\n{'file':>16} {'reviewhost':>11} {'seed':>10} {'ratio':>7} {'RSS':>9}  verdicts")
        for count in (200, 1000):
            path = os.path.join(base, f"mixed-{count}.json")
            with open(path, "w") as f:
                json.dump(mixed_assertions(count), f, indent=2)
            ours = os.path.join(base, f"ours-{count}.json")
            shutil.copy(path, ours)
            cmd = [binary, "run", ours, "--root", root, "--timeout", "60s"]
            file_checks.timed(cmd, env)  # warm: page cache, compiled components
            reviewhost = statistics.median(file_checks.timed(cmd, env) for _ in range(args.runs))
            rss = file_checks.peak_rss_kib(cmd, env)
            seed_times = []
            theirs = os.path.join(base, f"seed-{count}.json")
            for _ in range(max(2, args.runs // 2)):
                shutil.copy(path, theirs)
                seed_times.append(file_checks.timed(["bash", seed], env=dict(env, ASSERTIONS_FILE=theirs), cwd=root))
            seed_time = statistics.median(seed_times)
            a, b = statuses(ours), statuses(theirs)
            differ = sorted(i for i in a if a[i] != b[i])
            verdicts = "identical" if not differ else f"{len(differ)} differ: {', '.join(differ[:8])}"
            print(f"{count:>6} assertions {reviewhost * 1000:9.0f}ms {seed_time * 1000:8.0f}ms "
                  f"{seed_time / reviewhost:6.2f}x {rss / 1024:7.1f}MiB  {verdicts}")

        print()
        grep_throughput.compare_searches(binary, base, root, env, args.runs)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
